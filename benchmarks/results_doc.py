"""Measured figures written into the docs: a page's block between two marker lines is
rewritten from a results file by the script that measured it, and the tests check that
the page shows what the file gives (``block`` reads it back)."""


def block(path, start, end):
    """The text between the markers start and end of the file at path, stripped."""
    with open(path) as f:
        return f.read().split(start, 1)[1].split(end, 1)[0].strip()


def replace_block(path, start, end, text):
    """Put text between the markers of the file at path; False (the file unchanged) when
    it lacks them."""
    with open(path) as f:
        page = f.read()
    if start not in page or end not in page:
        return False
    head, rest = page.split(start, 1)
    tail = rest.split(end, 1)[1]
    with open(path, "w") as f:
        f.write(f"{head}{start}\n{text}\n{end}{tail}")
    return True
