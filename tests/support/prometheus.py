"""A strict parser of the Prometheus text exposition format (version 0.0.4), for tests.

Stricter than the format where the module is specified to be: no blank lines, no timestamps, no
trailing comma in a label set, one space before the value, and every family has both HELP and TYPE.
"""

import math
import re


class ExpositionError(ValueError):
    """The text breaks the exposition format."""


METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN")
TYPES = ("counter", "gauge", "histogram")
LABEL_ESCAPES = {"\\": "\\", '"': '"', "n": "\n"}
HELP_ESCAPES = {"\\": "\\", "n": "\n"}


class Family:
    """One metric family: its TYPE, HELP and samples."""

    def __init__(self, name):
        self.name = name
        self.type = None
        self.help = None
        self.samples = []  # (sample name, labels dict, value), in document order

    def value(self, sample_name=None, **labels):
        """The value of the one sample with exactly these labels (KeyError when there is none)."""
        sample_name = sample_name or self.name
        for name, sample_labels, value in self.samples:
            if name == sample_name and sample_labels == labels:
                return value
        raise KeyError((sample_name, labels))

    def series(self, sample_name=None):
        """{tuple of label values in document order: value} for the samples named `sample_name`."""
        sample_name = sample_name or self.name
        return {tuple(labels.values()): value
                for name, labels, value in self.samples if name == sample_name}


def unescape(text, escapes, where):
    """Resolve the backslash escapes allowed in a label value or a HELP text."""
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            follower = text[i + 1:i + 2]
            if follower not in escapes or not follower:
                raise ExpositionError(f"{where}: invalid escape \\{follower}")
            out.append(escapes[follower])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


def parse_value(text, where):
    """Return a sample value as a float, or raise ExpositionError."""
    if not FLOAT.fullmatch(text):
        raise ExpositionError(f"{where}: value {text!r} is not a float")
    return float(text)


def parse_labels(line, pos, where):
    """Parse `name="value",...}` from line[pos:]; return (position after `}`, labels)."""
    labels = {}
    if line[pos:pos + 1] == "}":
        return pos + 1, labels
    while True:
        match = LABEL_NAME.match(line, pos)
        if not match:
            raise ExpositionError(f"{where}: label name expected at column {pos}")
        name, pos = match.group(), match.end()
        if name.startswith("__"):
            raise ExpositionError(f"{where}: reserved label name {name}")
        if name in labels:
            raise ExpositionError(f"{where}: duplicate label {name}")
        if line[pos:pos + 2] != '="':
            raise ExpositionError(f'{where}: =" expected after label {name}')
        pos += 2
        start = pos
        while True:
            if pos >= len(line):
                raise ExpositionError(f"{where}: unterminated label value")
            if line[pos] == "\\":
                pos += 2
            elif line[pos] == '"':
                break
            else:
                pos += 1
        labels[name] = unescape(line[start:pos], LABEL_ESCAPES, where)
        pos += 1
        separator = line[pos:pos + 1]
        if separator == "}":
            return pos + 1, labels
        if separator != ",":
            raise ExpositionError(f"{where}: , or }} expected after label {name}")
        pos += 1


def parse_exposition(text):
    """Parse a whole exposition into {name: Family}, in document order; raise ExpositionError."""
    if not text.endswith("\n"):
        raise ExpositionError("the exposition must end with a newline")
    families, current, seen_series = {}, None, set()

    def family_for_comment(name, where):
        nonlocal current
        if not METRIC_NAME.fullmatch(name):
            raise ExpositionError(f"{where}: invalid metric name {name!r}")
        if current is not None and current.name == name:
            if current.samples:
                raise ExpositionError(f"{where}: HELP/TYPE after the samples of {name}")
            return current
        if name in families:
            raise ExpositionError(f"{where}: the lines of {name} are not one group")
        current = families[name] = Family(name)
        return current

    for number, line in enumerate(text[:-1].split("\n"), 1):
        where = f"line {number}"
        if line == "":
            raise ExpositionError(f"{where}: blank line")
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) < 2 or parts[0] != "#" or parts[1] not in ("HELP", "TYPE"):
                continue  # an ordinary comment
            if len(parts) != 4 or not parts[3]:
                raise ExpositionError(f"{where}: # {parts[1]} needs a metric name and a text")
            family = family_for_comment(parts[2], where)
            if parts[1] == "HELP":
                if family.help is not None:
                    raise ExpositionError(f"{where}: second HELP for {family.name}")
                family.help = unescape(parts[3], HELP_ESCAPES, where)
            else:
                if family.type is not None:
                    raise ExpositionError(f"{where}: second TYPE for {family.name}")
                if parts[3] not in TYPES:
                    raise ExpositionError(f"{where}: unknown type {parts[3]!r}")
                family.type = parts[3]
            continue

        match = METRIC_NAME.match(line)
        if not match:
            raise ExpositionError(f"{where}: metric name expected")
        name, pos = match.group(), match.end()
        labels = {}
        if line[pos:pos + 1] == "{":
            pos, labels = parse_labels(line, pos + 1, where)
        if line[pos:pos + 1] != " ":
            raise ExpositionError(f"{where}: one space expected before the value")
        value = parse_value(line[pos + 1:], where)

        if current is None or current.type is None:
            raise ExpositionError(f"{where}: sample {name} before any TYPE")
        if current.type == "histogram":
            suffix = name[len(current.name):] if name.startswith(current.name) else None
            if suffix not in ("_bucket", "_sum", "_count"):
                raise ExpositionError(f"{where}: {name} is not a sample of histogram "
                                      f"{current.name}")
            if (suffix == "_bucket") != ("le" in labels):
                raise ExpositionError(f"{where}: le belongs on _bucket samples, and only there")
            if suffix == "_bucket":
                parse_value(labels["le"], where)
            if suffix != "_sum" and not (value >= 0 and value == int(value)):
                raise ExpositionError(f"{where}: histogram counts are non-negative integers")
        else:
            if name != current.name:
                raise ExpositionError(f"{where}: {name} is not a sample of {current.name}")
            if current.type == "counter" and not value >= 0:
                raise ExpositionError(f"{where}: counter {name} is negative or NaN")
        key = (name, tuple(sorted(labels.items())))
        if key in seen_series:
            raise ExpositionError(f"{where}: duplicate series {key}")
        seen_series.add(key)
        current.samples.append((name, labels, value))

    for family in families.values():
        if family.type is None or family.help is None:
            raise ExpositionError(f"{family.name} lacks a HELP or a TYPE line")
        if family.type == "histogram":
            check_histogram(family)
    return families


def check_histogram(family):
    """Each series: buckets cumulative and monotone in le, a +Inf bucket equal to _count, a _sum."""
    groups = {}
    for name, labels, value in family.samples:
        rest = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
        group = groups.setdefault(rest, {"buckets": [], "sum": None, "count": None})
        if name.endswith("_bucket"):
            group["buckets"].append((float(labels["le"]), value))
        else:
            group[name.rsplit("_", 1)[1]] = value
    for rest, group in groups.items():
        buckets = group["buckets"]
        if not buckets or group["sum"] is None or group["count"] is None:
            raise ExpositionError(f"{family.name}{rest}: buckets, _sum and _count are all required")
        bounds = [le for le, _ in buckets]
        if bounds != sorted(bounds) or len(set(bounds)) != len(bounds):
            raise ExpositionError(f"{family.name}{rest}: buckets out of le order")
        counts = [count for _, count in buckets]
        if counts != sorted(counts):
            raise ExpositionError(f"{family.name}{rest}: buckets are not cumulative")
        if bounds[-1] != math.inf:
            raise ExpositionError(f"{family.name}{rest}: no +Inf bucket")
        if counts[-1] != group["count"]:
            raise ExpositionError(f"{family.name}{rest}: +Inf bucket != _count")
