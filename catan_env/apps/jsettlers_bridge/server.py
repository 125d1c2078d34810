"""A local JSettlers2 server with its robots, for matches and tests: started from the
jar (``--jar``, ``$JSETTLERS_JAR``, or the project's shared copy), bound to 127.0.0.1 on
a free port, ended (with its robots) when the ``with`` block ends."""
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any, List, Optional

JAR_NAME = "JSettlers-2.7.00.jar"
START_TIMEOUT_S = 30.0
SHARED_DIRS = ("../shared/jsettlers", "../../shared/jsettlers", "/work/shared/jsettlers")


def find_jar(jar: Optional[str] = None) -> Optional[str]:
    """The server jar: the one named, else ``$JSETTLERS_JAR``, else the shared copy beside
    the repository (``../shared/jsettlers/``); None when there is none."""
    if jar:
        return jar if os.path.isfile(jar) else None
    env = os.environ.get("JSETTLERS_JAR")
    if env:
        return env if os.path.isfile(env) else None
    here = os.path.dirname(os.path.abspath(__file__))
    roots = [os.getcwd(), os.path.join(here, "..", "..")]
    for root in roots:
        for d in SHARED_DIRS:
            path = os.path.normpath(os.path.join(root, d, JAR_NAME))
            if os.path.isfile(path):
                return path
    return None


def jsettlers_available(jar: Optional[str] = None) -> Optional[str]:
    """None when a local server can start here; else what is missing, in words."""
    if shutil.which("java") is None:
        return "no `java` on PATH (install Java 17: apt-get install -y default-jdk-headless)"
    if shutil.which("javac") is None:  # the launchers run through Java's source launcher
        return ("Java without its compiler (a JRE): the server's launcher needs a JDK "
                "(apt-get install -y default-jdk-headless)")
    if find_jar(jar) is None:
        return ("no JSettlers server jar: pass --jar, set JSETTLERS_JAR, or keep "
                f"{JAR_NAME} in ../shared/jsettlers/")
    return None


SERVER_NICE = -5  # the server's robots have ROBOT_SECONDS for a move, whatever else runs


def _server_priority() -> None:
    """(in the server's process) A higher priority than the agents' where allowed: a
    starved built-in robot is ended by its own server after ROBOT_SECONDS (8 s in the
    server as shipped), which cuts a set-up short (and costs it turns later).  The server runs in a session of its own, which Linux
    schedules as a group of its own ("autogroup"): a process's nice value only ranks it
    within its group, so the group's nice is set too.  Without the permission the server
    keeps its parent's priority."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, SERVER_NICE)
    except OSError:
        pass
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(SERVER_NICE))
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# the robots' strategies (``SOCRobotDM``): the server gives a robot named "robot N" the
# SMART strategy and one named "droid N" the FAST one (``SOCServer.getRobotParameters``)
# ("default": the server's own default mix, DEFAULT_MIX_ROBOTS robots it starts itself, 30%
# of them FAST (``SOCServer`` with jsettlers.startrobots: here 3 SMART and 1 FAST), each game
# drawing its robots from the pool at random)
ROBOT_STRATEGIES = ("smart", "fast", "default")
DEFAULT_MIX_ROBOTS = 4
# starts the FAST robots in a JVM of their own (Java's source launcher compiles it, which
# needs a JDK's jdk.compiler), pausing as the server's own robots do in a robots-only game
# (a setting the server can only give the robots in its own JVM)
FAST_ROBOTS_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "FastRobots.java")
# starts the server with ROBOT_SECONDS for a built-in robot's move instead of its 8 s
SERVER_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ServerLauncher.java")
ROBOT_SECONDS = 60  # a robot starved on a busy machine still moves; a hung one is ended


class LocalJSettlersServer:
    """``robots`` built-in robots on a fresh server; games are started by an observer and
    filled from the robot pool (``GameHost``), our seats joining as third-party robots
    with ``cookie``.  ``pause_percent`` scales the robots' pauses (0: none, 100: human
    pace); ``turn_timeout_s`` is how long the server lets a robot (ours too) think before
    it ends the robot's turn for it.  ``robot_strategy``: "smart", the robots the server
    starts itself (with 3 robots all of them are SMART), or "fast": the server starts
    none, and as many FAST robots ("droid N") join from a JVM of their own; or "default":
    the server's default mix (``DEFAULT_MIX_ROBOTS`` of its own, one FAST), whatever
    ``robots`` says, every game drawing from the pool at random."""

    def __init__(self, robots: int = 3, jar: Optional[str] = None, pause_percent: int = 0,
                 turn_timeout_s: int = 3600, log_path: Optional[str] = None,
                 max_connections: int = 20, robot_strategy: str = "smart") -> None:
        if not 0 <= pause_percent <= 100:
            raise ValueError(f"pause_percent must be 0..100, got {pause_percent}")
        if robot_strategy not in ROBOT_STRATEGIES:
            raise ValueError(f"robot_strategy must be one of {ROBOT_STRATEGIES}, got {robot_strategy!r}")
        if robot_strategy == "smart" and robots > 3:
            # setupLocalRobots makes 30% of a larger pool FAST, and games draw from the pool at random
            raise ValueError(f"the server's own pool is all SMART only up to 3 robots, got {robots}")
        why = jsettlers_available(jar)
        if why is not None:
            raise RuntimeError(f"cannot start a JSettlers server: {why}")
        self.jar = find_jar(jar)
        self.robots = robots
        self.pause_percent = pause_percent
        self.turn_timeout_s = turn_timeout_s
        self.log_path = log_path
        self.max_connections = max_connections
        self.robot_strategy = robot_strategy
        self.cookie = secrets.token_hex(12)
        self.port = 0
        self.proc: Optional[subprocess.Popen] = None
        self.robots_proc: Optional[subprocess.Popen] = None
        self._ready_file = ""

    def command(self) -> List[str]:
        own = {"smart": self.robots, "fast": 0, "default": DEFAULT_MIX_ROBOTS}[self.robot_strategy]
        props = {"jsettlers.startrobots": own, "jsettlers.bots.cookie": self.cookie,
                 "jsettlers.bots.botgames.total": -1,
                 "jsettlers.bots.fast_pause_percent": self.pause_percent,
                 "jsettlers.bots.timeout.turn": self.turn_timeout_s}
        # (the server reads these from its own command line, after the jar: as JVM -D
        # properties they are ignored)
        # (a small heap and the serial collector: four robots need little, and several
        # servers run side by side with --workers)
        return ["java", "-Xmx384m", "-XX:+UseSerialGC", "-cp", str(self.jar), SERVER_SOURCE, str(ROBOT_SECONDS),
                *[f"-D{k}={v}" for k, v in props.items()],
                str(self.port), str(self.max_connections)]

    def robots_command(self) -> List[str]:
        """The command that starts the FAST robots (``FastRobots.java``)."""
        return ["java", "-Xmx192m", "-XX:+UseSerialGC", "-cp", str(self.jar), FAST_ROBOTS_SOURCE,
                "127.0.0.1", str(self.port), self.cookie, str(self.robots), str(self.pause_percent),
                self._ready_file]

    def __enter__(self) -> "LocalJSettlersServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server (and the FAST robots); on any failure, or an interrupt, what
        was started is ended before the exception goes on."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        self.port = free_port()
        log = open(self.log_path, "a") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=_server_priority)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the JSettlers server exited at start (code {self.proc.returncode})"
                                   + (f"; see {self.log_path}" if self.log_path else ""))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError(f"the JSettlers server did not listen within {START_TIMEOUT_S:.0f} s")
        if self.robot_strategy == "fast":
            self._start_fast_robots(log)
        else:
            time.sleep(0.3 + 0.1 * self.robots)  # the robots connect just after the port opens

    def _start_fast_robots(self, log: Any) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            self._ready_file = os.path.join(tmp, "ready")
            self.robots_proc = subprocess.Popen(self.robots_command(), stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True,
                                                preexec_fn=_server_priority)
            deadline = time.monotonic() + START_TIMEOUT_S
            while not os.path.exists(self._ready_file):
                code = self.robots_proc.poll()
                if code is not None or time.monotonic() > deadline:
                    self.stop()
                    why = (f"exited at start (code {code}; the source launcher needs a JDK's jdk.compiler)"
                           if code is not None else f"did not start within {START_TIMEOUT_S:.0f} s")
                    raise RuntimeError(f"the FAST robots {why}"
                                       + (f"; see {self.log_path}" if self.log_path else ""))
                time.sleep(0.1)
        time.sleep(0.3 + 0.1 * self.robots)  # connected: authenticated just after

    def stop(self) -> None:
        for proc in (self.robots_proc, self.proc):
            if proc is None:
                continue
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
        self.robots_proc = None
        self.proc = None

