// A stand-in for `helm template` (the helm binary cannot be installed here): Go's text/template with
// the sprig functions, plus the few functions Helm adds that the chart uses (include, tpl, toYaml,
// fromYaml, required) and the objects it sees (.Values, .Release, .Chart, .Files).
//
// Usage: render CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]   (manifests on stdout)
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

type files struct{ root string }

// Get returns a chart file's content, as Helm's .Files.Get does.
func (f files) Get(name string) string {
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		return ""
	}
	return string(b)
}

func readYAML(path string) map[string]interface{} {
	out := map[string]interface{}{}
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	if err := yaml.Unmarshal(b, &out); err != nil {
		fail(fmt.Errorf("%s: %w", path, err))
	}
	return out
}

// merge overlays b onto a, recursing into maps, as Helm merges values files.
func merge(a, b map[string]interface{}) map[string]interface{} {
	for k, v := range b {
		if bm, ok := v.(map[string]interface{}); ok {
			if am, ok := a[k].(map[string]interface{}); ok {
				a[k] = merge(am, bm)
				continue
			}
		}
		if v == nil {
			delete(a, k)
			continue
		}
		a[k] = v
	}
	return a
}

func toYAML(v interface{}) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func fromYAML(s string) map[string]interface{} {
	out := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &out); err != nil {
		out["Error"] = err.Error()
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "render:", err)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 4 {
		fail(errors.New("usage: render CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]"))
	}
	chartDir, release, namespace := os.Args[1], os.Args[2], os.Args[3]
	chart := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	values := readYAML(filepath.Join(chartDir, "values.yaml"))
	for _, f := range os.Args[4:] {
		values = merge(values, readYAML(f))
	}
	data := map[string]interface{}{
		"Values":  values,
		"Release": map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true},
		"Chart": map[string]interface{}{
			"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"],
		},
		"Files": files{chartDir},
	}

	root := template.New("chart")
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	root.Funcs(funcs).Option("missingkey=zero")

	paths, _ := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	sort.Strings(paths)
	var manifests []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			fail(err)
		}
		name := "templates/" + filepath.Base(p)
		if _, err := root.New(name).Parse(string(b)); err != nil {
			fail(err)
		}
		if strings.HasSuffix(p, ".yaml") && !strings.HasPrefix(filepath.Base(p), "_") {
			manifests = append(manifests, name)
		}
	}
	for _, name := range manifests {
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			fail(err)
		}
		if strings.TrimSpace(buf.String()) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimSpace(buf.String()))
	}
}
