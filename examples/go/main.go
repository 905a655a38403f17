// A first Go program on the mgmt plugin: one search index, run by Go's Automation API with an
// inline program, so no Go language host is needed (Pulumi's CLI releases bundle one; this
// project's machines cannot build it). The plugin must be installed once per machine
// (`npx pulumi-resource-mgmt install`, README); settings come from `mgmt:*` config or the MGMT_*
// variables, here the emulator's:
//
//	npx mgmt-emulator --port 0 --pid-file .emulator.pid --env > .emulator.env &   # from a project with pulumi-mgmt
//	until [ -s .emulator.env ]; do sleep 0.2; done; . ./.emulator.env
//	export PULUMI_CONFIG_PASSPHRASE=choose-one PULUMI_BACKEND_URL=file://$PWD/state
//	mkdir -p state && go run . up        # then: go run . preview, go run . destroy
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi-mgmt/pulumi-mgmt/sdk/go/mgmt"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// program is what a Pulumi program's main would declare.
func program(ctx *pulumi.Context) error {
	catalog, err := mgmt.NewSearchIndex(ctx, "catalog", &mgmt.SearchIndexArgs{
		Region: mgmt.SearchRegionEuWest1,
		Type:   mgmt.SearchIndexTypePayg,
	})
	if err != nil {
		return err
	}
	ctx.Export("endpoint", catalog.Endpoint)
	ctx.Export("token", catalog.Tokens.Token()) // secret: shown as [secret]
	return nil
}

func main() {
	os.Exit(run())
}

// run returns the exit status, so that the deferred removal below runs before the exit.
func run() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run . up|preview|destroy")
		return 2
	}
	ctx := context.Background()
	// The inline program's workspace: a temporary folder of this run's own, removed however it ends
	// (the Automation API would make one per run and leave it).
	workDir, err := os.MkdirTemp("", "mgmt-go-example-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(workDir)
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "mgmt-go-example", program, auto.WorkDir(workDir))
	if err != nil {
		// No passphrase or backend, a CLI that is not on PATH: the Automation API says which.
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	switch os.Args[1] {
	case "up":
		var res auto.UpResult
		if res, err = stack.Up(ctx, optup.ProgressStreams(os.Stdout), optup.ErrorProgressStreams(os.Stderr)); err == nil {
			fmt.Println("endpoint:", res.Outputs["endpoint"].Value)
		}
	case "preview":
		_, err = stack.Preview(ctx, optpreview.ProgressStreams(os.Stdout), optpreview.ErrorProgressStreams(os.Stderr))
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stdout), optdestroy.ErrorProgressStreams(os.Stderr))
	default:
		fmt.Fprintf(os.Stderr, "unknown operation %q: use up, preview or destroy\n", os.Args[1])
		return 2
	}
	if err != nil {
		// The engine's own lines are in the progress above, and the CLI's own (a missing or wrong
		// passphrase, before any engine runs) on stderr; the Automation API's error repeats them.
		// A missing plugin gets the engine's advice to download it, which cannot work: say how to
		// install it. The engine names it so whether it tried a download ("Could not automatically
		// download and install resource plugin ...") or was told not to ("no resource plugin ...").
		if strings.Contains(err.Error(), "resource plugin 'pulumi-resource-mgmt'") {
			fmt.Fprintln(os.Stderr, "the mgmt plugin is not installed: run `npx pulumi-resource-mgmt install` in a project that has pulumi-mgmt, then run this again")
			return 1
		}
		fmt.Fprintf(os.Stderr, "%s failed: the reason is above\n", os.Args[1])
		return 1
	}
	return 0
}
