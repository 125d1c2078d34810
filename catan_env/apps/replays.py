"""Replaying saved games step by step, with rendering, and a CLI to export frames.

    for step in catan_env.replay("game.json", render_mode="ansi"):
        print(step.action_name, step.frame)

CLI: ``catan-render game.json --out frames/ [--gif game.gif] [--every 10] [--html game.html]``
"""
import os
from typing import List, Optional, Union

from ..cli import parser, positive_int, require, user_errors
from ..core.record import GameRecord
from ..playback import ReplayStep, replay  # noqa: F401  (re-exported)


def export_frames(record: Union[GameRecord, str], out_dir: Optional[str] = None, gif: Optional[str] = None,
                  every: int = 1, fps: int = 4) -> int:
    """Write PNG frames (every k-th position plus the last) and/or an animated GIF."""
    from PIL import Image
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    images = []
    steps = list(replay(record))
    picked = [st for st in steps if st.index % every == 0]
    if picked[-1].index != steps[-1].index:
        picked.append(steps[-1])
    from .. import render as R
    for st in picked:
        img = Image.fromarray(R.render_rgb(st.state))
        if out_dir:
            img.save(os.path.join(out_dir, f"frame_{st.index:05d}.png"))
        if gif:
            images.append(img.convert("P", palette=Image.Palette.ADAPTIVE))
    if gif and images:
        images[0].save(gif, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return len(picked)


@user_errors("catan-render")
def main(argv: Optional[List[str]] = None) -> int:
    ap = parser("catan-render", "Replay a recorded game as PNG frames, a GIF or an HTML page.")
    ap.add_argument("record", help="a game record (JSON), e.g. from catan-arena --save-games")
    ap.add_argument("--out", help="folder for PNG frames")
    ap.add_argument("--gif", help="path of an animated GIF to write")
    ap.add_argument("--html", help="path of a self-contained HTML page to watch in a browser")
    ap.add_argument("--every", type=positive_int, default=1, help="keep every k-th position (PNG/GIF)")
    ap.add_argument("--fps", type=float, default=4, help="GIF frames per second")
    args = ap.parse_args(argv)
    if not (args.out or args.gif or args.html):
        ap.error("give --out, --gif and/or --html")
    record = GameRecord.load(args.record)  # a bad record fails here, before anything is written
    if args.html:
        from .html_replay import write_html
        n = write_html(record, args.html)
        print(f"wrote {args.html} ({n} positions)")
    if args.out or args.gif:
        require("PIL", "viz")
        n = export_frames(record, args.out, args.gif, args.every, args.fps)
        print(f"wrote {n} frames" + (f" to {args.out}" if args.out else "") + (f", gif {args.gif}" if args.gif else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
