"""Read docs/interface.md: its tables by heading, as the tests compare them with the nodes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from shared_data import PROJECT_ROOT

INTERFACE_DOC = PROJECT_ROOT / "docs" / "interface.md"
NODE_HEADING = re.compile(r"^(\S+) \(node name `([\w]+)`\)$")
CODES_HEADING = re.compile(r"\(`(\w+)/(msg|srv|action)/(\w+)`, field `(\w+)`\)")


@dataclass
class Section:
    """One `##` section: its heading and its tables by `###` heading (rows as dicts)."""

    heading: str
    tables: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    def table(self, subheading: str) -> list[dict[str, str]]:
        """The rows of the table under the `###` heading that starts with `subheading`."""
        return next(
            (rows for name, rows in self.tables.items() if name.startswith(subheading)), []
        )


def _cells(line: str) -> list[str]:
    """The cells of a table row; `\\|` inside a cell is a literal bar."""
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def read_sections(path: Path = INTERFACE_DOC) -> list[Section]:
    """Every `##` section of a Markdown file with the tables under its `###` headings."""
    sections: list[Section] = []
    subheading = ""
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## "):
            sections.append(Section(line[3:].strip()))
            subheading = ""
        elif line.startswith("### "):
            subheading = line[4:].strip()
        elif line.startswith("|") and sections:
            header = _cells(line)
            rows = []
            index += 2  # past the separator row
            while index < len(lines) and lines[index].startswith("|"):
                rows.append(dict(zip(header, _cells(lines[index]), strict=True)))
                index += 1
            sections[-1].tables[subheading] = rows
            continue
        index += 1
    return sections


def node_sections(path: Path = INTERFACE_DOC) -> dict[str, tuple[str, Section]]:
    """Node name -> (executable, section) for every `## <executable> (node name `x`)`."""
    found = {}
    for section in read_sections(path):
        match = NODE_HEADING.match(section.heading)
        if match:
            found[match.group(2)] = (match.group(1), section)
    return found


def code(text: str) -> str:
    """A cell's text without its backticks."""
    return text.strip().strip("`")


def parameter_value(text: str) -> object:
    """A documented default, read as a parameter file would read it (YAML)."""
    return yaml.safe_load(code(text))
