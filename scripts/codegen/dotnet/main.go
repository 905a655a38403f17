// Command codegen-dotnet writes the .NET SDK of the `mgmt` plugin from its package schema with
// Pulumi's .NET code generator, what the pulumi-language-dotnet host runs for `pulumi package
// gen-sdk`. That generator lives in the pulumi-dotnet repository and compiles against the
// pkg/v3 its go.mod pins (older than the CLI's), so it is a module of its own, beside
// ../main.go, which writes the other SDKs; scripts/gen-sdk.sh builds and runs both.
//
//	codegen-dotnet -schema schema.json -out sdk/dotnet
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	dotnetgen "github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The tool name the generator writes into each file's "do not edit" header.
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

// The generator downloads the package's logo into the SDK (logo.png, the NuGet package icon),
// from the schema's logoUrl or, as here without one, Pulumi's default logo at a fixed commit.
// The SDK is generated offline and the same every time: that default logo is served from this
// copy of it (the one the generator's own test data holds), and no other URL is fetched.
const defaultLogoURL = "https://raw.githubusercontent.com/pulumi/pulumi/dbc96206bec722b7791a22ff50e895ab7c0abdc0/sdk/dotnet/pulumi_logo_64x64.png"

//go:embed pulumi-logo.png
var defaultLogo []byte

type offline struct{}

func (offline) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.String() != defaultLogoURL {
		return nil, fmt.Errorf("scripts/codegen/dotnet fetches nothing but the default logo, not %s", req.URL)
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": []string{"image/png"}},
		Body:       io.NopCloser(bytes.NewReader(defaultLogo)),
		Request:    req,
	}, nil
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
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return fmt.Errorf("the schema does not bind: %s", diags.Error())
	}
	files, err := dotnetgen.GeneratePackage(tool, pkg, nil, nil)
	if err != nil {
		return fmt.Errorf("generating the .NET SDK: %w", err)
	}
	// Emptied first, so that a file the schema no longer produces does not linger.
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for name, data := range files {
		path := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	http.DefaultTransport = offline{}
	http.DefaultClient.Transport = offline{}
	schemaPath := flag.String("schema", "", "the package schema (JSON) to generate from")
	out := flag.String("out", "sdk/dotnet", "the folder to write the .NET SDK into")
	flag.Parse()
	if *schemaPath == "" {
		fmt.Fprintln(os.Stderr, "codegen-dotnet: -schema is required (scripts/gen-sdk.sh passes the built package's)")
		os.Exit(2)
	}
	if err := run(*schemaPath, *out); err != nil {
		fmt.Fprintf(os.Stderr, "codegen-dotnet: %v\n", err)
		os.Exit(1)
	}
}
