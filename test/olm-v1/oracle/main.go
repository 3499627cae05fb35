// olmv1-oracle: our small main, compiled inside a copy of github.com/operator-framework/operator-controller
// (its packages are internal/, so .ci/olmv1-oracle.sh builds this file as cmd/opgen-olmv1-oracle of that
// module; none of their code is kept in this repository). It runs their own code on our inputs and prints
// one JSON verdict on stdout, for the tests that put opgen's OLM v1 checks side by side with it.
//
//	olmv1-oracle bundle <dir> [--install-namespace ns] [--watch-namespace ns] [--webhook-provider cert-manager|openshift-serviceca]
//	olmv1-oracle crd <old.yaml> <new.yaml>
//	olmv1-oracle catalog-template <semver-template.yaml> <image=bundle-dir>...
//	olmv1-oracle catalog-validate <fbc-dir>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/template/semver"
	"github.com/operator-framework/operator-registry/pkg/image"
	"github.com/operator-framework/operator-registry/pkg/registry"

	"github.com/operator-framework/operator-controller/internal/operator-controller/resolve"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/bundle/source"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/convert"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/preflights/crdupgradesafety"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/render"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/render/certproviders"
	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/render/registryv1"
)

type verdict struct {
	Verdict  string    `json:"verdict"` // pass | fail
	Stage    string    `json:"stage,omitempty"`
	Message  string    `json:"message,omitempty"`
	Findings []finding `json:"findings,omitempty"`
	Catalog  any       `json:"catalog,omitempty"`
}

type finding struct {
	Where string `json:"where"` // "crd", a version ("v1") or a served-version pair ("v1 -> v2")
	Path  string `json:"path,omitempty"`
	Rule  string `json:"rule"`
}

func main() {
	if len(os.Args) < 2 {
		die("usage: olmv1-oracle bundle|crd|catalog-template|catalog-validate ...")
	}
	var v verdict
	switch os.Args[1] {
	case "bundle":
		v = bundle(os.Args[2:])
	case "crd":
		if len(os.Args) != 4 {
			die("usage: olmv1-oracle crd <old.yaml> <new.yaml>")
		}
		v = crd(os.Args[2], os.Args[3])
	case "catalog-template":
		v = catalogTemplate(os.Args[2:])
	case "catalog-validate":
		v = catalogValidate(os.Args[2])
	default:
		die("unknown mode " + os.Args[1])
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(out))
}

func die(msg string) {
	fmt.Fprintln(os.Stderr, "olmv1-oracle: "+msg)
	os.Exit(2)
}

func fail(stage string, err error) verdict {
	return verdict{Verdict: "fail", Stage: stage, Message: err.Error()}
}

// bundle: what operator-controller does with a registry+v1 bundle. The resolver refuses a bundle whose
// properties declare dependencies (resolve.NoDependencyValidation, on the properties opm renders from the
// bundle directory); the applier converts it with the same BundleToHelmChartConverter main.go builds,
// passing the ClusterExtension's watchNamespace as bundle config (empty when none is configured).
func bundle(args []string) verdict {
	if len(args) < 1 {
		die("usage: olmv1-oracle bundle <dir> [flags]")
	}
	dir := args[0]
	installNs, watchNs, provider := "operators", "", ""
	for i := 1; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--install-namespace":
			installNs = args[i+1]
		case "--watch-namespace":
			watchNs = args[i+1]
		case "--webhook-provider":
			provider = args[i+1]
		default:
			die("unknown flag " + args[i])
		}
	}

	img, err := registry.NewImageInput(image.SimpleReference(""), dir)
	if err != nil {
		return fail("render", err)
	}
	_, props, err := registry.ObjectsAndPropertiesFromBundle(img.Bundle)
	if err != nil {
		return fail("render", err)
	}
	if err := resolve.NoDependencyValidation(&declcfg.Bundle{Name: img.Bundle.Name, Properties: props}); err != nil {
		return fail("resolve", err)
	}

	var cp render.CertificateProvider
	switch provider {
	case "":
	case "cert-manager":
		cp = certproviders.CertManagerCertificateProvider{}
	case "openshift-serviceca":
		cp = certproviders.OpenshiftServiceCaCertificateProvider{}
	default:
		die("unknown webhook provider " + provider)
	}
	conv := convert.BundleToHelmChartConverter{BundleRenderer: registryv1.Renderer, CertificateProvider: cp, IsWebhookSupportEnabled: cp != nil}
	if _, err := conv.ToHelmChart(source.FromFS(os.DirFS(dir)), installNs, map[string]interface{}{"watchNamespace": watchNs}); err != nil {
		return fail("convert", err)
	}
	return verdict{Verdict: "pass"}
}

// crdClient answers the preflight's one call, Get, with the old CRD (the one on the cluster).
type crdClient struct {
	apiextensionsv1client.CustomResourceDefinitionInterface
	old *apiextensionsv1.CustomResourceDefinition
}

func (c crdClient) Get(_ context.Context, name string, _ metav1.GetOptions) (*apiextensionsv1.CustomResourceDefinition, error) {
	if c.old == nil || c.old.Name != name {
		return nil, apierrors.NewNotFound(apiextensionsv1.Resource("customresourcedefinitions"), name)
	}
	return c.old, nil
}

// Lines of the preflight's error: "<rule>: <message>" for CRD-wide rules, "<version>: <path>: <rule>: <message>"
// for a version (or "a -> b" for a pair of served versions); an unhandled change continues over more lines.
var (
	crdWideLine = regexp.MustCompile(`^(?:validating upgrade for CRD "[^"]*": )?(scope|storedVersionRemoval|existingFieldRemoval): `)
	versionLine = regexp.MustCompile(`^(?:validating upgrade for CRD "[^"]*": )?([^ :]+(?: -> [^ :]+)?): (\^[^ ]*): ([A-Za-z]+): `)
)

// crd: the CRD upgrade-safety preflight operator-controller runs before an upgrade, on an install whose
// release manifest is the new CRD and whose cluster holds the old one.
func crd(oldPath, newPath string) verdict {
	oldBytes, err := os.ReadFile(oldPath)
	if err != nil {
		die(err.Error())
	}
	newBytes, err := os.ReadFile(newPath)
	if err != nil {
		die(err.Error())
	}
	old := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(oldBytes, old); err != nil {
		return fail("parse", fmt.Errorf("%s: %w", oldPath, err))
	}
	pf := crdupgradesafety.NewPreflight(crdClient{old: old})
	err = pf.Upgrade(context.Background(), &release.Release{Name: "opgen", Manifest: string(newBytes)})
	if err == nil {
		return verdict{Verdict: "pass"}
	}
	v := verdict{Verdict: "fail", Stage: "preflight", Message: err.Error()}
	for _, line := range strings.Split(err.Error(), "\n") {
		if m := crdWideLine.FindStringSubmatch(line); m != nil {
			f := finding{Where: "crd", Rule: m[1]}
			if _, removed, ok := strings.Cut(line, "removed field : "); ok {
				f.Path = removed // <version>.<path>
			}
			v.Findings = append(v.Findings, f)
		} else if m := versionLine.FindStringSubmatch(line); m != nil {
			v.Findings = append(v.Findings, finding{Where: m[1], Path: m[2], Rule: m[3]})
		}
	}
	return v
}

// catalogTemplate: opm's semver template (alpha render-template semver) with bundles rendered from local
// bundle directories the way `opm render <dir>` does, then the validation `opm validate` runs.
func catalogTemplate(args []string) verdict {
	if len(args) < 1 {
		die("usage: olmv1-oracle catalog-template <template.yaml> <image=dir>...")
	}
	dirs := map[string]string{}
	for _, a := range args[1:] {
		img, dir, ok := strings.Cut(a, "=")
		if !ok {
			die("expected image=dir, got " + a)
		}
		dirs[img] = dir
	}
	f, err := os.Open(args[0])
	if err != nil {
		die(err.Error())
	}
	defer f.Close()
	tmpl := semver.Template{Data: f, RenderBundle: func(_ context.Context, ref string) (*declcfg.DeclarativeConfig, error) {
		dir, ok := dirs[ref]
		if !ok {
			return nil, fmt.Errorf("no bundle directory given for image %q", ref)
		}
		img, err := registry.NewImageInput(image.SimpleReference(ref), dir)
		if err != nil {
			return nil, err
		}
		objs, props, err := registry.ObjectsAndPropertiesFromBundle(img.Bundle)
		if err != nil {
			return nil, err
		}
		return &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{{Schema: declcfg.SchemaBundle, Name: img.Bundle.Name, Package: img.Bundle.Package, Image: ref, Properties: props, Objects: objs}}}, nil
	}}
	cfg, err := tmpl.Render(context.Background())
	if err != nil {
		return fail("template", err)
	}
	v := validate(cfg)
	v.Catalog = summary(cfg)
	return v
}

func catalogValidate(dir string) verdict {
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		return fail("load", err)
	}
	v := validate(cfg)
	v.Catalog = summary(cfg)
	return v
}

func validate(cfg *declcfg.DeclarativeConfig) verdict {
	m, err := declcfg.ConvertToModel(*cfg)
	if err != nil {
		return fail("model", err)
	}
	if err := m.Validate(); err != nil {
		return fail("validate", err)
	}
	return verdict{Verdict: "pass"}
}

// summary: the upgrade graph, which the tests compare with opgen's (the bundles' objects are left out).
func summary(cfg *declcfg.DeclarativeConfig) any {
	type bundle struct {
		Name, Package, Image string
	}
	out := struct {
		Packages []declcfg.Package `json:"packages"`
		Channels []declcfg.Channel `json:"channels"`
		Bundles  []bundle          `json:"bundles"`
	}{Packages: cfg.Packages, Channels: cfg.Channels}
	for _, b := range cfg.Bundles {
		out.Bundles = append(out.Bundles, bundle{b.Name, b.Package, b.Image})
	}
	return out
}
