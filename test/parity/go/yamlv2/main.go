// Command yamlv2 writes each JSON document of a JSON array read from stdin as YAML exactly as
// controller-gen writes manifests (genall's yamlMarshal: JSON decoded with UseNumber, then
// sigs.k8s.io/yaml.Marshal, i.e. yaml.v2), each after a `---` line. src/gen/yaml.test.ts compares opgen's
// writer with it byte for byte.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var docs []json.RawMessage
	if err := json.Unmarshal(in, &docs); err != nil {
		fail(err)
	}
	for _, raw := range docs {
		var obj map[string]any
		decoder := json.NewDecoder(bytes.NewReader(raw))
		decoder.UseNumber()
		if err := decoder.Decode(&obj); err != nil {
			fail(err)
		}
		out, err := yaml.Marshal(obj)
		if err != nil {
			fail(err)
		}
		fmt.Print("---\n")
		os.Stdout.Write(out)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
