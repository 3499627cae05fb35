// The promql mode: reads a JSON array of PromQL expressions on stdin and parses each with Prometheus's
// own parser (promql/parser, what the Prometheus server and promtool check rules parse with). Prints,
// per expression, the parse error or the metric names it selects with the label names each selector
// matches on, and the label names it groups or matches by, so a caller can check them against a scrape.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/prometheus/prometheus/promql/parser"
)

type selector struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
}

type query struct {
	Expr      string     `json:"expr"`
	Error     string     `json:"error,omitempty"`
	Selectors []selector `json:"selectors"`
	// Labels named in by/without, on/ignoring and group_left/group_right.
	Grouping []string `json:"grouping"`
}

func promqlMode() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var exprs []string
	if err := json.Unmarshal(in, &exprs); err != nil {
		fmt.Fprintln(os.Stderr, "promql: stdin is not a JSON array of strings:", err)
		os.Exit(1)
	}
	p := parser.NewParser(parser.Options{})
	out := []query{}
	for _, e := range exprs {
		q := query{Expr: e, Selectors: []selector{}, Grouping: []string{}}
		node, err := p.ParseExpr(e)
		if err != nil {
			q.Error = err.Error()
			out = append(out, q)
			continue
		}
		grouping := map[string]bool{}
		parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
			switch n := n.(type) {
			case *parser.VectorSelector:
				s := selector{Name: n.Name, Labels: []string{}}
				for _, m := range n.LabelMatchers {
					if m.Name != "__name__" {
						s.Labels = append(s.Labels, m.Name)
					}
				}
				if s.Name == "" {
					for _, m := range n.LabelMatchers {
						if m.Name == "__name__" {
							s.Name = m.Value
						}
					}
				}
				sort.Strings(s.Labels)
				q.Selectors = append(q.Selectors, s)
			case *parser.AggregateExpr:
				for _, l := range n.Grouping {
					grouping[l] = true
				}
			case *parser.BinaryExpr:
				if n.VectorMatching != nil {
					for _, l := range n.VectorMatching.MatchingLabels {
						grouping[l] = true
					}
					for _, l := range n.VectorMatching.Include {
						grouping[l] = true
					}
				}
			}
			return nil
		})
		for l := range grouping {
			q.Grouping = append(q.Grouping, l)
		}
		sort.Strings(q.Grouping)
		out = append(out, q)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
