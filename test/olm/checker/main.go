// olm-checker: the oracle for `opgen bundle validate`. It loads a bundle directory with
// github.com/operator-framework/api's bundle loader (pkg/manifests) and runs the validators
// `operator-sdk bundle validate` runs (pkg/validation), then prints one JSON document:
//
//	{"loadError": "...", "results": [{"level": "error"|"warning", "type": "...", "field": "...", "detail": "..."}]}
//
// Usage: olm-checker [--optional operatorframework] <bundle dir>
// Exit code: 0 when no result has level error, 1 otherwise, 2 on usage errors.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
)

type finding struct {
	Level  string `json:"level"`
	Type   string `json:"type"`
	Field  string `json:"field,omitempty"`
	Detail string `json:"detail"`
	Text   string `json:"text"`
}

type report struct {
	LoadError string    `json:"loadError,omitempty"`
	Results   []finding `json:"results"`
}

func main() {
	optional := flag.String("optional", "", "optional suite to add (operatorframework)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: olm-checker [--optional operatorframework] <bundle dir>")
		os.Exit(2)
	}
	out := report{Results: []finding{}}
	bundle, err := manifests.GetBundleFromDir(flag.Arg(0))
	if err != nil {
		out.LoadError = err.Error()
	}
	failed := err != nil
	if bundle != nil {
		validators := validation.DefaultBundleValidators
		switch *optional {
		case "":
		case "operatorframework":
			// operator-sdk's `--select-optional suite=operatorframework`.
			validators = append(interfaces.Validators{}, validators...)
			validators = append(validators,
				validation.OperatorHubV2Validator,
				validation.StandardCapabilitiesValidator,
				validation.StandardCategoriesValidator,
				validation.ObjectValidator,
				validation.AlphaDeprecatedAPIsValidator,
				validation.GoodPracticesValidator,
			)
		default:
			fmt.Fprintf(os.Stderr, "unknown optional suite %q\n", *optional)
			os.Exit(2)
		}
		objs := bundle.ObjectsToValidate()
		for _, result := range validators.Validate(objs...) {
			for _, e := range result.Errors {
				out.Results = append(out.Results, toFinding(e))
				failed = true
			}
			for _, w := range result.Warnings {
				out.Results = append(out.Results, toFinding(w))
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	if failed {
		os.Exit(1)
	}
}

func toFinding(e errors.Error) finding {
	level := "warning"
	if e.Level == errors.LevelError {
		level = "error"
	}
	return finding{Level: level, Type: string(e.Type), Field: e.Field, Detail: e.Detail, Text: e.Error()}
}
