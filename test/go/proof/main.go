// The Go proof of the `mgmt` plugin (issue 37 item 5): a program on the generated Go SDK
// (sdk/go), run by the real engine through Go's Automation API with an inline program, which
// serves its own language runtime, so no Go language host is needed. test/e2e/pluginProofs.test.ts
// drives it, one operation per run, and checks the emulator between runs:
//
//	proof up|preview|refresh|destroy
//
// The environment gives the rest: PROOF_DECLARED (the program's values, JSON), PROOF_CONFIG (the
// stack's config, JSON: key -> {value, secret}), PROOF_BACKEND (a file:// URL), PROOF_PLUGIN_DIR
// (where `pulumi-resource-mgmt install --dir` put the plugin), PROOF_CLI_ROOT (the folder above
// the CLI's bin/). It prints one JSON line: the engine's change summary and the stack's outputs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi-mgmt/pulumi-mgmt/sdk/go/mgmt"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type declared struct {
	IndexType       string `json:"indexType"`
	MessagingBudget int    `json:"messagingBudget"`
	DatabaseBudget  int    `json:"databaseBudget"`
	Paused          bool   `json:"paused"`
	DatabaseID      string `json:"databaseId"`
	Found           *found `json:"found,omitempty"`
}

// found is an index made out of band, declared with the `import` option: its inputs are what the
// plugin's read answers (an import adopts by id).
type found struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Region string `json:"region"`
	Type   string `json:"type"`
}

type configValue struct {
	Value  string `json:"value"`
	Secret bool   `json:"secret"`
}

type output struct {
	Value  interface{} `json:"value"`
	Secret bool        `json:"secret"`
}

type report struct {
	Changes map[string]int    `json:"changes"`
	Outputs map[string]output `json:"outputs,omitempty"`
	// The engine's own output of the run (destroy: what it says of the objects it released).
	Output string `json:"output,omitempty"`
}

// program declares every resource of the package and reads the account through a function.
func program(d declared) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		region := mgmt.MessagingRegionEuCentral1
		// The Output form: the account record carries its tokens, which the plugin answers secret
		// (a plain invoke refuses a secret result).
		account := mgmt.LookupMessagingAccountOutput(ctx, mgmt.LookupMessagingAccountOutputArgs{
			Region: region, Type: mgmt.MessagingAccountTypePaid,
		})
		docs, err := mgmt.NewSearchIndex(ctx, "docs", &mgmt.SearchIndexArgs{
			Name: pulumi.String("docs"), Region: mgmt.SearchRegionEuWest1, Type: mgmt.SearchIndexType(d.IndexType),
		})
		if err != nil {
			return err
		}
		if _, err := mgmt.NewMessagingAccount(ctx, "account", &mgmt.MessagingAccountArgs{
			AccountId: account.Id(), ProdPack: pulumi.Bool(true),
		}); err != nil {
			return err
		}
		if _, err := mgmt.NewMessagingBudget(ctx, "messagingBudget", &mgmt.MessagingBudgetArgs{
			AccountId: account.Id(), Budget: pulumi.Int(d.MessagingBudget),
		}); err != nil {
			return err
		}
		if _, err := mgmt.NewDatabaseBudget(ctx, "databaseBudget", &mgmt.DatabaseBudgetArgs{
			DatabaseId: pulumi.String(d.DatabaseID), Budget: pulumi.Int(d.DatabaseBudget),
		}); err != nil {
			return err
		}
		if _, err := mgmt.NewFlowControlKey(ctx, "key", &mgmt.FlowControlKeyArgs{
			Region: region, Key: pulumi.String("proof-key"), Paused: pulumi.Bool(d.Paused),
		}); err != nil {
			return err
		}
		if _, err := mgmt.NewMessagingQueue(ctx, "queue", &mgmt.MessagingQueueArgs{
			Region: region, Queue: pulumi.String("proof-orders"), Parallelism: pulumi.Int(3),
		}); err != nil {
			return err
		}
		if f := d.Found; f != nil {
			if _, err := mgmt.NewSearchIndex(ctx, "found", &mgmt.SearchIndexArgs{
				Name: pulumi.String(f.Name), Region: mgmt.SearchRegion(f.Region), Type: mgmt.SearchIndexType(f.Type),
				Adopt: pulumi.String(f.ID),
			}, pulumi.Import(pulumi.ID(f.ID))); err != nil {
				return err
			}
		}
		ctx.Export("indexId", docs.ID())
		ctx.Export("tokens", docs.Tokens)
		return nil
	}
}

func run(ctx context.Context, op string) (report, error) {
	var d declared
	if err := json.Unmarshal([]byte(os.Getenv("PROOF_DECLARED")), &d); err != nil {
		return report{}, fmt.Errorf("PROOF_DECLARED: %w", err)
	}
	var config map[string]configValue
	if err := json.Unmarshal([]byte(os.Getenv("PROOF_CONFIG")), &config); err != nil {
		return report{}, fmt.Errorf("PROOF_CONFIG: %w", err)
	}
	cli, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: os.Getenv("PROOF_CLI_ROOT"), SkipVersionCheck: true})
	if err != nil {
		return report{}, err
	}
	project := workspace.Project{
		Name:    "mgmt-go-proof",
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		Backend: &workspace.ProjectBackend{URL: os.Getenv("PROOF_BACKEND")},
		Plugins: &workspace.Plugins{Providers: []workspace.PluginOptions{{Name: "mgmt", Path: os.Getenv("PROOF_PLUGIN_DIR")}}},
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "go", project.Name.String(), program(d),
		auto.Pulumi(cli), auto.Project(project), auto.SecretsProvider("passphrase"))
	if err != nil {
		return report{}, err
	}
	// The Automation API makes a temporary folder (pulumi_auto*) for each run and never removes it;
	// each run makes its own and sets the stack's config again, so nothing in it is needed later.
	defer os.RemoveAll(stack.Workspace().WorkDir())
	all := auto.ConfigMap{}
	for k, v := range config {
		all[k] = auto.ConfigValue{Value: v.Value, Secret: v.Secret}
	}
	if err := stack.SetAllConfig(ctx, all); err != nil {
		return report{}, err
	}
	switch op {
	case "up":
		res, err := stack.Up(ctx)
		if err != nil {
			return report{}, err
		}
		outputs := map[string]output{}
		for k, v := range res.Outputs {
			outputs[k] = output{Value: v.Value, Secret: v.Secret}
		}
		return report{Changes: *res.Summary.ResourceChanges, Outputs: outputs}, nil
	case "preview":
		res, err := stack.Preview(ctx)
		if err != nil {
			return report{}, err
		}
		changes := map[string]int{}
		for k, v := range res.ChangeSummary {
			changes[string(k)] = v
		}
		return report{Changes: changes}, nil
	case "refresh":
		res, err := stack.Refresh(ctx)
		if err != nil {
			return report{}, err
		}
		return report{Changes: *res.Summary.ResourceChanges}, nil
	case "destroy":
		res, err := stack.Destroy(ctx)
		if err != nil {
			return report{}, err
		}
		return report{Changes: *res.Summary.ResourceChanges, Output: res.StdOut}, nil
	}
	return report{}, fmt.Errorf("usage: proof up|preview|refresh|destroy (got %q)", op)
}

func main() {
	op := ""
	if len(os.Args) > 1 {
		op = os.Args[1]
	}
	res, err := run(context.Background(), op)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}
