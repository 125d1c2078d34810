"""Play on a real JSettlers2 server against its robots (the papers' yardstick): the
board decoder, the seat's client with its mirror of the game, a local server with
robots, and the ``catan-jsettlers`` matches.  See docs/jsettlers.md."""
from .client import GameHost, JSettlersClient, MirrorMismatch
from .server import LocalJSettlersServer, find_jar, jsettlers_available

__all__ = ["GameHost", "JSettlersClient", "MirrorMismatch", "LocalJSettlersServer", "find_jar",
           "jsettlers_available"]
