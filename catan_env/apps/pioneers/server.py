"""A local Pioneers server with AI players, started and ended safely.

    with LocalServer(ai_players=3) as srv:      # free ports on 127.0.0.1, chosen here
        client = PioneersClient("127.0.0.1", srv.port, agent)
        srv.start_ais_after(...)                 # or let the server fill seats itself

Every process is started under ``timeout`` and in its own process group, and ended
(terminate, then kill) when the block exits, whatever happened.
"""
import os
import shutil
import signal
import socket
import subprocess
import time
from typing import IO, List, Literal, Optional, Sequence, Union

SERVER = "pioneers-server-console"
AI = "pioneersai"
GAMES_DIR = "/usr/games"


def pioneers_available() -> Optional[str]:
    """The reason Pioneers cannot run here, or None when it can."""
    path = os.environ.get("PATH", "") + os.pathsep + GAMES_DIR
    for exe in (SERVER, AI):
        if shutil.which(exe, path=path) is None:
            return f"{exe} not found (apt-get install pioneers-console)"
    return None


def free_port() -> int:
    """A TCP port nobody listens on now (the server binds all interfaces)."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


class LocalServer:
    """pioneers-server-console on free ports, with ``ai_players`` greedy AIs that join
    after the caller's clients (seats in connection order)."""

    port: int        # the game's and the admin port, chosen on entering the block
    admin_port: int

    def __init__(self, players: int = 4, ai_players: int = 3, vp: int = 10, ai_delay_ms: int = 0,
                 max_seconds: int = 1800, terrain_random: bool = True, log_dir: Optional[str] = None,
                 sevens_rule: int = 0) -> None:
        self.players, self.ai_players, self.vp = players, ai_players, vp
        self.ai_delay_ms = ai_delay_ms
        self.max_seconds = max_seconds
        self.terrain_random = terrain_random
        self.sevens_rule = sevens_rule
        self.log_dir = log_dir
        self.procs: List["subprocess.Popen[bytes]"] = []
        self.env = dict(os.environ, PATH=os.environ.get("PATH", "") + os.pathsep + GAMES_DIR)

    def __enter__(self) -> "LocalServer":
        reason = pioneers_available()
        if reason:
            raise RuntimeError(reason)
        for attempt in range(5):
            self.port, self.admin_port = free_port(), free_port()
            cmd = ["timeout", str(self.max_seconds), SERVER, "-g", "Default", "-P", str(self.players),
                   "-v", str(self.vp), "-x", "-k", "120", "-p", str(self.port), "-a", str(self.admin_port),
                   "-T", "1" if self.terrain_random else "0", "-R", str(self.sevens_rule),
                   "--fixed-seating-order"]
            proc = self._spawn(cmd, "server.log")
            if self._wait_listening(self.port, proc):
                return self
            self._stop(proc)
        raise RuntimeError("the Pioneers server did not start listening (see server.log)")

    def _spawn(self, cmd: List[str], log_name: str) -> "subprocess.Popen[bytes]":
        out: Union[int, IO[bytes]] = subprocess.DEVNULL
        if self.log_dir is not None:
            os.makedirs(self.log_dir, exist_ok=True)
            out = open(os.path.join(self.log_dir, log_name), "ab")
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    @staticmethod
    def _wait_listening(port: int, proc: "subprocess.Popen[bytes]", timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def start_ais(self, count: Optional[int] = None,
                  names: Sequence[str] = ("Alice", "Bob", "Carol", "Dave")) -> None:
        """Start the AI players (after our clients joined, so they take the last seats)."""
        for i in range(self.ai_players if count is None else count):
            name = names[i % len(names)]
            self._spawn(["timeout", str(self.max_seconds), AI, "-s", "127.0.0.1", "-p", str(self.port),
                         "-n", name, "-t", str(self.ai_delay_ms), "-c"], f"ai-{name}.log")

    def admin(self, command: str, wait: float = 0.5) -> List[str]:
        """Send one admin command (``info``, ``fix-dice 7``...); return the reply lines."""
        with socket.create_connection(("127.0.0.1", self.admin_port), timeout=5) as s:
            s.sendall(f"admin {command}\n".encode())
            time.sleep(wait)
            s.settimeout(0.5)
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
        return [ln for ln in data.decode(errors="replace").splitlines() if ln]

    @staticmethod
    def _stop(proc: "subprocess.Popen[bytes]") -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=3)
            except (ProcessLookupError, subprocess.TimeoutExpired, PermissionError):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                proc.wait(timeout=3)

    def __exit__(self, *exc: object) -> Literal[False]:
        for proc in reversed(self.procs):
            self._stop(proc)
        self.procs = []
        return False
