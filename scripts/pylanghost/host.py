"""A small Python language host for the Pulumi engine: what `pulumi up/preview/refresh/destroy`
of a `runtime: python` project needs, run by the interpreter of the project's virtual environment
(scripts/pylanghost/pulumi-language-python chooses it).

Pulumi's own host (Go, in pulumi/pulumi sdk/python/cmd/pulumi-language-python) is not served by
the Go module proxy this project's machines reach. This one serves the `LanguageRuntime` of the
`pulumi` package's Automation API (pulumi.automation._server.LanguageServer, which runs an inline
program) with the project's `__main__.py` (or its `main:`) as the program: the engine's settings,
config and secrets reach it as they reach an inline program. Plugins are not reported
(GetRequiredPlugins answers none): a provider comes from the project's `plugins:` or the plugin
cache. `pulumi import`'s code generation (GenerateProgram) answers one line on what to do instead.
Everything else answers Unimplemented, which the engine treats as an older host.
"""

import os
import runpy
import socket
import sys
import threading
import time
from concurrent import futures

try:
    import grpc
    from pulumi.automation._server import LanguageServer
    from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
    from pulumi.runtime.proto import language_pb2, language_pb2_grpc
except ImportError as err:
    print(
        f"pulumi-language-python: {sys.executable} cannot import the pulumi package ({err}): activate the"
        " project's virtual environment, or make one in venv/ beside Pulumi.yaml and pip install the"
        " program's packages into it",
        file=sys.stderr,
    )
    sys.exit(1)


class Host(LanguageServer):
    def __init__(self, engine_address):
        super().__init__(self._program)
        self.engine_address = engine_address
        self.entry = None

    def _program(self):
        # As `python <dir>` or `python <file>` would: the entry's folder first on sys.path.
        entry = self.entry
        folder = entry if os.path.isdir(entry) else os.path.dirname(entry)
        sys.path.insert(0, folder)
        runpy.run_path(entry, run_name="__main__")

    def Run(self, request, context):
        pwd = request.pwd or os.getcwd()
        os.chdir(pwd)
        self.entry = os.path.join(pwd, request.program or ".")
        # The inline server reads the engine's address from the run's arguments; a host is given it
        # on its command line.
        run = language_pb2.RunRequest()
        run.CopyFrom(request)
        del run.args[:]
        run.args.append(self.engine_address)
        return super().Run(run, context)


    def GenerateProgram(self, request, context):
        # `pulumi import` asks for the code to paste after it has imported: say how to do without it.
        context.abort(
            grpc.StatusCode.UNIMPLEMENTED,
            "scripts/pylanghost does not write Python code: the import is done; run pulumi import with"
            " --generate-code=false, or with Pulumi's own Python host (in its releases) to get the code",
        )


def watch_engine(address, every_s=2.0):
    # A CLI killed with SIGKILL never stops its plugins: like Pulumi's own hosts, this one ends once
    # its engine no longer answers (twice in a row, so one busy moment is not taken for death).
    host, _, port = address.rpartition(":")
    misses = 0
    while True:
        time.sleep(every_s)
        try:
            socket.create_connection((host or "127.0.0.1", int(port)), timeout=every_s).close()
            misses = 0
        except OSError:
            misses += 1
            if misses >= 2:
                os._exit(0)


def main():
    if not sys.argv[1:]:
        print("usage: pulumi-language-python ENGINE_ADDRESS (the engine starts it)", file=sys.stderr)
        sys.exit(1)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=_GRPC_CHANNEL_OPTIONS)
    language_pb2_grpc.add_LanguageRuntimeServicer_to_server(Host(sys.argv[-1]), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    threading.Thread(target=watch_engine, args=(sys.argv[-1],), daemon=True).start()
    # The engine reads the port from the first line of stdout.
    print(port, flush=True)
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:  # the engine ends its plugins with an interrupt: not an error
        server.stop(0)


if __name__ == "__main__":
    main()
