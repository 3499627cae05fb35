// promcheck reads Prometheus text exposition (format 0.0.4) on stdin and judges it with the Prometheus
// Go libraries: expfmt's text parser (what a Prometheus server's scrape and `promtool` parse with) and
// client_golang's promlint (the linter behind `promtool check metrics`). It prints one JSON object:
// the parsed families, and the linter's problems. Exit 2 when the text does not parse.
// `promcheck promql` parses PromQL instead (promql.go).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// num is a sample value in JSON: a number, or "NaN", "+Inf" or "-Inf", which JSON cannot spell.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return json.Marshal(f)
}

type sample struct {
	Labels  map[string]string `json:"labels"`
	Value   *num              `json:"value,omitempty"`
	Buckets map[string]num    `json:"buckets,omitempty"`
	Sum     *num              `json:"sum,omitempty"`
	Count   *num              `json:"count,omitempty"`
}

type family struct {
	Type    string   `json:"type"`
	Help    string   `json:"help"`
	Samples []sample `json:"samples"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "promql" {
		promqlMode()
		return
	}
	text, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(2)
	}
	problems, err := promlint.New(bytes.NewReader(text)).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lint:", err)
		os.Exit(2)
	}
	out := struct {
		Families map[string]family `json:"families"`
		Problems []string          `json:"problems"`
	}{Families: map[string]family{}, Problems: []string{}}
	for name, mf := range families {
		f := family{Type: mf.GetType().String(), Help: mf.GetHelp(), Samples: []sample{}}
		for _, m := range mf.GetMetric() {
			s := sample{Labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.Labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				v := num(m.GetCounter().GetValue())
				s.Value = &v
			case dto.MetricType_GAUGE:
				v := num(m.GetGauge().GetValue())
				s.Value = &v
			case dto.MetricType_UNTYPED:
				v := num(m.GetUntyped().GetValue())
				s.Value = &v
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				s.Buckets = map[string]num{}
				for _, b := range h.GetBucket() {
					s.Buckets[fmt.Sprint(b.GetUpperBound())] = num(b.GetCumulativeCount())
				}
				sum, count := num(h.GetSampleSum()), num(h.GetSampleCount())
				s.Sum, s.Count = &sum, &count
			}
			f.Samples = append(f.Samples, s)
		}
		out.Families[name] = f
	}
	for _, p := range problems {
		out.Problems = append(out.Problems, p.Metric+": "+p.Text)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
