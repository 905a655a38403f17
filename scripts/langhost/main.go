// Command pulumi-language-nodejs is a minimal Node.js language host for the Pulumi engine.
//
// The project prefers the upstream host (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs),
// but that module is published only as untagged pseudo-versions, which the module proxy reachable
// from this project's machines does not serve. scripts/ensure-pulumi.sh builds this host instead
// when the upstream one cannot be fetched.
//
// It implements what `pulumi new/install/preview/up/refresh/destroy/import` of a Node.js program
// needs: Run (start `@pulumi/pulumi/cmd/run` from the program's own node_modules with the
// engine's settings), InstallDependencies (npm, pnpm or yarn install), GenerateProgram (the
// TypeScript `pulumi import` prints, by Pulumi's own Node.js code generator, as the upstream host
// does), GetPluginInfo, and empty plugin requirements (dynamic providers need no plugin download).
// Everything else answers Unimplemented, which the engine treats as "older host".
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is set with -ldflags "-X main.version=v3.x.y" to the @pulumi/pulumi version it serves.
var version = "v3.0.0"

// exitCodeReported is what @pulumi/pulumi/cmd/run exits with after it has already shown the
// user an actionable error: the engine must not print a second, generic one.
const exitCodeReported = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: strings.TrimPrefix(version, "v")}, nil
}

func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

// GenerateProgram turns the program `pulumi import` writes in Pulumi's intermediate language
// (PCL) into TypeScript, binding it against the schemas the engine serves (LoaderTarget): what
// the upstream host does, so that `pulumi import` prints the code to paste.
func (h *host) GenerateProgram(ctx context.Context, req *pulumirpc.GenerateProgramRequest) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()
	parser := syntax.NewParser()
	for path, contents := range req.Source {
		if err := parser.ParseFile(strings.NewReader(contents), path); err != nil {
			return nil, err
		}
		if parser.Diagnostics.HasErrors() {
			return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(parser.Diagnostics)}, nil
		}
	}
	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.Strict {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, diags, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), options...)
	if err != nil {
		return nil, err
	}
	diagnostics := plugin.HclDiagnosticsToRPCDiagnostics(diags)
	if diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: diagnostics}, nil
	}
	files, diags, err := nodejs.GenerateProgram(program)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: append(diagnostics, plugin.HclDiagnosticsToRPCDiagnostics(diags)...),
	}, nil
}

func (h *host) GetRequiredPackages(context.Context, *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

// InstallDependencies runs the project's package manager where its package.json is (what
// `pulumi new` and `pulumi install` ask for), streaming its output to the engine.
func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	dir := req.GetInfo().GetRootDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	name, args := "npm", []string{"install", "--no-audit", "--no-fund"}
	switch {
	case fileExists(filepath.Join(dir, "pnpm-lock.yaml")):
		name, args = "pnpm", []string{"install"}
	case fileExists(filepath.Join(dir, "yarn.lock")):
		name, args = "yarn", []string{"install"}
	}
	cmd := exec.CommandContext(server.Context(), name, args...)
	cmd.Dir = dir
	cmd.Stdout = streamWriter(func(b []byte) error { return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b}) })
	cmd.Stderr = streamWriter(func(b []byte) error { return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b}) })
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s in %s failed: %w", name, strings.Join(args, " "), dir, err)
	}
	return nil
}

type streamWriter func([]byte) error

func (w streamWriter) Write(p []byte) (int, error) {
	if err := w(append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}
	entry := info.GetEntryPoint()
	if entry == "" {
		entry = req.GetProgram() //nolint:staticcheck // older engines only fill this
	}
	if entry == "" {
		entry = "."
	}
	opts := info.GetOptions().AsMap()

	runScript, err := resolveRunScript(ctx, programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	var args []string
	if nodeArgs, ok := opts["nodeargs"].(string); ok && nodeArgs != "" {
		args = append(args, strings.Fields(nodeArgs)...)
	}
	args = append(args, runScript,
		"--monitor="+req.GetMonitorAddress(),
		"--engine="+h.engineAddress,
		"--project="+req.GetProject(),
		"--stack="+req.GetStack(),
		"--pwd="+req.GetPwd(),
	)
	if org := req.GetOrganization(); org != "" {
		args = append(args, "--organization="+org)
	}
	if root := info.GetRootDirectory(); root != "" {
		args = append(args, "--root-directory="+root)
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if p := req.GetParallel(); p > 1 {
		args = append(args, "--parallel="+strconv.Itoa(int(p)))
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	// A stack with no config at all has a nil map, which marshals as "null": the SDK's
	// parseConfig then fails with a TypeError inside the user's first `new Resource`.
	config, err := json.Marshal(nonNilMap(req.GetConfig()))
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(nonNil(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, err
	}
	typescript := true
	if v, ok := opts["typescript"].(bool); ok {
		typescript = v
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
		"PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript),
	)
	if tsconfig, ok := opts["tsconfig"].(string); ok && tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}

	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = programDir
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if exit.ExitCode() == exitCodeReported {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode()),
			}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start node: %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// resolveRunScript finds @pulumi/pulumi/cmd/run from the program's directory, so the program
// runs on the SDK it depends on, exactly as the upstream host does.
func resolveRunScript(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "node", "-e",
		`process.stdout.write(require.resolve("@pulumi/pulumi/cmd/run"))`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find @pulumi/pulumi from %s: run 'npm install' there (%v)", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func main() {
	// The engine passes logging and tracing flags first and its own address last.
	var engineAddress string
	for i := 1; i < len(os.Args); i++ {
		a := os.Args[i]
		switch {
		case a == "--tracing" || a == "-tracing" || a == "--root" || a == "-root":
			i++ // flag with a separate value
		case strings.HasPrefix(a, "-"):
		default:
			engineAddress = a
		}
	}
	if engineAddress == "" {
		fmt.Fprintln(os.Stderr, "usage: pulumi-language-nodejs [flags] <engine-address>")
		os.Exit(2)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Exit when the engine goes away, so no host outlives its `pulumi` process.
	go func() { _ = rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, cancel) }()

	stop := make(chan bool)
	go func() { <-ctx.Done(); close(stop) }()
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: stop,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engineAddress: engineAddress})
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
}
