"""The Python proof of the `mgmt` plugin (issue 64 item 1).

A program on the generated Python SDK (sdk/python, installed with pip beside `pulumi` from PyPI),
run by the real engine through Python's Automation API with an inline program, which serves its
own language runtime, so no Python language host is needed. test/e2e/pluginProofs.test.ts drives
it, one operation per run, and checks the emulator between runs:

    python proof.py up|preview|refresh|destroy

The environment gives the rest, as for the Go proof (test/go/proof/main.go): PROOF_DECLARED (the
program's values, JSON), PROOF_CONFIG (the stack's config, JSON: key -> {value, secret}),
PROOF_BACKEND (a file:// URL), PROOF_PLUGIN_DIR (where `pulumi-resource-mgmt install --dir` put
the plugin), PROOF_CLI_ROOT (the folder above the CLI's bin/). It prints one JSON line: the
engine's change summary and the stack's outputs, a secret one's value as "[secret]".
"""

import json
import os
import shutil
import sys
import tempfile

import pulumi
import pulumi_mgmt as mgmt
from pulumi import automation as auto

REGION = "eu-central-1"


def program(d):
    """Every resource of the package, the account read through a function."""

    def run():
        # The Output form: the account record carries its tokens, which the plugin answers secret
        # (a plain invoke refuses a secret result).
        account = mgmt.get_messaging_account_output(region=REGION, type="paid")
        docs = mgmt.SearchIndex("docs", name="docs", region="eu-west-1", type=d["indexType"])
        mgmt.MessagingAccount("account", account_id=account.id, prod_pack=True)
        mgmt.MessagingBudget("messagingBudget", account_id=account.id, budget=d["messagingBudget"])
        mgmt.DatabaseBudget("databaseBudget", database_id=d["databaseId"], budget=d["databaseBudget"])
        mgmt.FlowControlKey("key", region=REGION, key="proof-key", paused=d["paused"])
        mgmt.MessagingQueue("queue", region=REGION, queue="proof-orders", parallelism=3)
        found = d.get("found")
        if found:
            # An index made out of band, taken with the `import` option: the engine reads it through
            # the plugin and the inputs must be what the read answers (an import adopts by id).
            mgmt.SearchIndex(
                "found",
                name=found["name"],
                region=found["region"],
                type=found["type"],
                adopt=found["id"],
                opts=pulumi.ResourceOptions(import_=found["id"]),
            )
        pulumi.export("indexId", docs.id)
        pulumi.export("tokens", docs.tokens)

    return run


def project_file(work_dir):
    # Python's ProjectSettings has no `plugins` field: the workspace reads a Pulumi.yaml written
    # here instead (JSON is YAML), with the plugin's folder as the Go proof gives it.
    settings = {
        "name": "mgmt-python-proof",
        "runtime": "python",
        "backend": {"url": os.environ["PROOF_BACKEND"]},
        "plugins": {"providers": [{"name": "mgmt", "path": os.environ["PROOF_PLUGIN_DIR"]}]},
    }
    with open(os.path.join(work_dir, "Pulumi.yaml"), "w", encoding="utf-8") as f:
        json.dump(settings, f)


def changes(op_map):
    return {str(getattr(k, "value", k)): v for k, v in (op_map or {}).items()}


def run(op):
    if op not in ("up", "preview", "refresh", "destroy"):
        raise ValueError(f"usage: proof.py up|preview|refresh|destroy (got {op!r})")
    d = json.loads(os.environ["PROOF_DECLARED"])
    config = json.loads(os.environ["PROOF_CONFIG"])
    # Each run makes its own folder and sets the stack's config again, so nothing in it is needed later.
    work_dir = tempfile.mkdtemp(prefix="mgmt-python-proof-")
    try:
        project_file(work_dir)
        cli = auto.PulumiCommand(root=os.environ["PROOF_CLI_ROOT"], skip_version_check=True)
        stack = auto.create_or_select_stack(
            "python",
            project_name="mgmt-python-proof",
            program=program(d),
            opts=auto.LocalWorkspaceOptions(work_dir=work_dir, secrets_provider="passphrase", pulumi_command=cli),
        )
        stack.set_all_config({k: auto.ConfigValue(v["value"], secret=v["secret"]) for k, v in config.items()})
        if op == "up":
            res = stack.up()
            outputs = {
                k: {"value": "[secret]" if v.secret else v.value, "secret": v.secret} for k, v in res.outputs.items()
            }
            return {"changes": changes(res.summary.resource_changes), "outputs": outputs}
        if op == "preview":
            return {"changes": changes(stack.preview().change_summary)}
        if op == "refresh":
            return {"changes": changes(stack.refresh().summary.resource_changes)}
        res = stack.destroy()
        # The engine's own output of the run: what it says of the objects it released.
        return {"changes": changes(res.summary.resource_changes), "output": res.stdout}
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def main():
    try:
        report = run(sys.argv[1] if len(sys.argv) > 1 else "")
    except Exception as err:  # the engine's own output is in the error: the caller shows it
        print(err, file=sys.stderr)
        sys.exit(1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
