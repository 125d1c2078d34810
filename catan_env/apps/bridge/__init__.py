"""What the server bridges share (the Pioneers and JSettlers clients): a seat's mirror of a
game played elsewhere and its direct edits, the seat's agent asked in the core's terms,
and a match's results."""
