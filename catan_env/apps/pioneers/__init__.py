"""Play on a real Pioneers server (Debian's ``pioneers-console``): the board decoder, the
seat's mirror of the game, the client that lets any agent play a seat, local servers
with AI players, and the ``catan-pioneers`` matches.  See docs/playing.md.
"""
from .client import PioneersClient
from .game import options_from_game
from .server import LocalServer, pioneers_available
from .transcripts import replay_transcript

__all__ = ["PioneersClient", "LocalServer", "options_from_game", "pioneers_available",
           "replay_transcript"]
