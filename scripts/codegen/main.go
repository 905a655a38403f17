// Command codegen writes the Go, Python and Node.js SDKs of the `mgmt` plugin from its package
// schema with Pulumi's own code generators (github.com/pulumi/pulumi/pkg/v3 at the Pulumi CLI's
// version: what `pulumi package gen-sdk` runs through those languages' hosts). The .NET
// generator lives in the pulumi-dotnet repository and is built against an older pkg/v3: it is
// its own module, ./dotnet. Run both through scripts/gen-sdk.sh, which builds them and feeds
// them the schema of the built package.
//
//	codegen -schema schema.json -out sdk
//
// writes sdk/go, sdk/python and sdk/nodejs, each emptied first so that a file the schema no
// longer produces does not linger.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The tool name the generators write into each file's "do not edit" header.
const tool = "pulumi-mgmt (scripts/gen-sdk.sh)"

// noPackages is the loader the schema binds with: it references no other package, so any
// request for one is a mistake in the schema, reported as such instead of downloading a plugin.
type noPackages struct{}

var errReference = errors.New("the mgmt schema references another package; scripts/codegen loads none")

func (noPackages) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return nil, errReference
}

func (noPackages) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errReference
}

func (noPackages) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errReference
}

func (noPackages) LoadPackageReferenceV2(context.Context, *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, errReference
}

// bind validates the spec against Pulumi's metaschema and binds it. Each language binds its own
// copy, as the language hosts do: a generator records its language's options on the package.
func bind(spec schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("the schema does not bind: %s", diags.Error())
	}
	return pkg, nil
}

var generators = map[string]func(*schema.Package) (map[string][]byte, error){
	"go": func(pkg *schema.Package) (map[string][]byte, error) {
		return gogen.GeneratePackage(tool, pkg, nil)
	},
	"python": func(pkg *schema.Package) (map[string][]byte, error) {
		return pythongen.GeneratePackage(tool, pkg, nil, noPackages{})
	},
	"nodejs": func(pkg *schema.Package) (map[string][]byte, error) {
		return nodejsgen.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	},
}

func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(schemaPath, out string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s is not a package schema: %w", schemaPath, err)
	}
	for _, language := range []string{"go", "python", "nodejs"} {
		pkg, err := bind(spec)
		if err != nil {
			return err
		}
		files, err := generators[language](pkg)
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", language, err)
		}
		if err := write(filepath.Join(out, language), files); err != nil {
			return fmt.Errorf("writing the %s SDK: %w", language, err)
		}
	}
	return nil
}

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON) to generate from")
	out := flag.String("out", "sdk", "the folder to write go/, python/ and nodejs/ into")
	flag.Parse()
	if *schemaPath == "" {
		fmt.Fprintln(os.Stderr, "codegen: -schema is required (scripts/gen-sdk.sh passes the built package's)")
		os.Exit(2)
	}
	if err := run(*schemaPath, *out); err != nil {
		fmt.Fprintf(os.Stderr, "codegen: %v\n", err)
		os.Exit(1)
	}
}
