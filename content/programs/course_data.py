"""The course's data tables, read by the companion programs when they run from the repository.

A program names the entries and fields it needs, one line per table:

    from course_data import table
    HARDWARE = table("hardware: h100-sxm, b200 | name, peak_flops, hbm_bandwidth_Bps")

which is {"h100-sxm": {"name": ..., "peak_flops": ..., "hbm_bandwidth_Bps": ...}, "b200": {...}}:
the named entries of a table (hardware: content/data/hardware.json accelerators; models:
models.json models; interconnect: interconnect.json links), each with the named fields only,
read from content/data beside this folder, so `python3 content/programs/<slug>.py` runs from
any working directory. The site build (web/scripts/programs.js) writes the same entries into
the copy readers download, as a Python literal in place of each such line, and leaves out the
import, so the downloaded program is one file that runs alone and prints the same output.
"""
import json
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data")
TABLES = {"hardware": ("hardware.json", "accelerators"), "models": ("models.json", "models"),
          "interconnect": ("interconnect.json", "links")}


def number(text):
    """A JSON number as the build writes it into the download (a JavaScript double): whole
    numbers below 2**53 as int (989.4e12 is 989_400_000_000_000), every other as float."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2 ** 53 else value


def table(spec):
    """The entries of spec ("table: id, id | field, field") as a dict by id, in spec's order."""
    name, colon, rest = spec.partition(":")
    ids, bar, fields = rest.partition("|")
    names = lambda text: [s.strip() for s in text.split(",") if s.strip()]
    if not colon or not bar or not names(ids) or not names(fields):
        raise ValueError(f'table("{spec}"): expected "table: id, id | field, field"')
    if name.strip() not in TABLES:
        raise ValueError(f'table("{spec}"): unknown table "{name.strip()}" (use {", ".join(TABLES)})')
    file, key = TABLES[name.strip()]
    with open(os.path.join(DATA_DIR, file), encoding="utf-8") as f:
        rows = json.load(f, parse_float=number, parse_int=number)[key]
    entries = {}
    for id_ in names(ids):
        row = next((r for r in rows if r.get("id") == id_), None)
        if row is None:
            raise ValueError(f'table("{spec}"): {name.strip()} has no entry "{id_}"')
        missing = [f for f in names(fields) if f not in row]
        if missing:
            raise ValueError(f'table("{spec}"): {name.strip()} entry "{id_}" has no field "{missing[0]}"')
        entries[id_] = {f: row[f] for f in names(fields)}
    return entries
