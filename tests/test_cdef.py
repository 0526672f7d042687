"""python/aclnn_emu/_cdef.h must declare exactly what the public headers declare.

Both files are parsed the same way (comments stripped, C++-only blocks
dropped, statements joined, ACL_FUNC_VISIBILITY / ACLNN_API / ACL_DEPRECATED
removed, whitespace normalized) and compared in both directions: functions by
normalized signature, enums and constants by value. The compiled module is
checked too: every constant's value in ``lib`` is the header's.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = ROOT / "include"
CDEF = ROOT / "python" / "aclnn_emu" / "_cdef.h"

MACROS = ("ACL_FUNC_VISIBILITY", "ACLNN_API", "ACL_DEPRECATED")
_INT = re.compile(r"^\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?$")
_QUALIFIERS = {"const", "volatile", "unsigned", "signed", "struct", "enum", "union"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def parse_int(text):
    m = _INT.match(text.strip())
    if not m:
        return None
    return int(m.group(1).replace(" ", ""), 0)


def norm_type(text):
    """Whitespace-normalize a type, spacing '*' uniformly: 'const char*' -> 'const char *'."""
    text = re.sub(r"\s*\*\s*", " * ", text)
    return " ".join(text.split())


def norm_param(param):
    """A parameter's type without its name and without top-level const."""
    tokens = norm_type(param).split()
    if tokens == ["void"]:
        return "void"
    if len(tokens) > 1 and re.match(r"^[A-Za-z_]\w*$", tokens[-1]) and not set(tokens[:-1]) <= _QUALIFIERS:
        tokens = tokens[:-1]
    if tokens and tokens[-1] == "const" and "*" in tokens:  # T *const -> T *
        tokens = tokens[:-1]
    if "*" not in tokens and tokens[:1] == ["const"]:  # by-value const is not part of the type
        tokens = tokens[1:]
    return " ".join(tokens)


def split_params(text):
    params, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        params.append(cur)
    return params


class Decls:
    """What one or more header files (or the cdef) declare."""

    def __init__(self):
        self.functions = {}  # name -> normalized signature
        self.enums = {}  # typedef name -> {constant: value}
        self.enum_values = {}  # constant -> value
        self.defines = {}  # name -> int value (None in the cdef: "...")
        self.consts = {}  # static const int name -> value (None in the cdef)
        self.typedefs = {}  # name -> normalized declaration
        self.other = []  # statements of no known kind

    def names(self):
        return (
            set(self.functions) | set(self.enum_values) | set(self.defines) | set(self.consts) | set(self.typedefs)
        )


def _preprocess(text, decls):
    """Drop comments and C++-only blocks; record integer #defines; return the C statements' text."""
    text = strip_comments(text).replace("\\\n", " ")
    lines, stack = [], []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("#"):
            if all(active for _, active in stack):
                lines.append(line)
            continue
        d = s[1:].strip()
        if d.startswith("if"):
            cpp = "__cplusplus" in d
            stack.append([cpp, not (cpp and d.startswith(("ifdef", "if defined", "if (defined")))])
        elif d.startswith("else") or d.startswith("elif"):
            if stack and stack[-1][0]:
                stack[-1][1] = not stack[-1][1]
        elif d.startswith("endif"):
            stack.pop()
        elif d.startswith("define") and all(active for _, active in stack):
            parts = d.split(None, 2)
            if len(parts) == 3:
                value = parts[2].strip()
                if value == "...":
                    decls.defines[parts[1]] = None
                elif parse_int(value) is not None:
                    decls.defines[parts[1]] = parse_int(value)
    return "\n".join(lines)


def _enum_values(body):
    values, nxt = {}, 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            name, value = (x.strip() for x in item.split("=", 1))
            v = parse_int(value)
            if v is None:
                v = values[value] if value in values else value
        else:
            name, v = item, nxt
        values[name] = v
        nxt = v + 1 if isinstance(v, int) else None
    return values


def split_statements(body):
    """Split on ';' outside braces, so struct bodies stay in one statement."""
    stmts, depth, cur = [], 0, []
    for ch in body:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == ";" and depth == 0:
            stmts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    stmts.append("".join(cur))
    return stmts


def parse(text, decls=None):
    """Parse C header (or cdef) text into :class:`Decls`."""
    decls = decls or Decls()
    body = _preprocess(text, decls)
    for stmt in split_statements(body):
        st = " ".join(stmt.split())
        if not st:
            continue
        for m in MACROS:
            st = re.sub(r"\b%s\b" % m, " ", st)
        st = " ".join(st.split())
        m = re.match(r"^typedef enum\s*(\w*)\s*\{(.*)\}\s*(\w+)$", st)
        if m:
            values = _enum_values(m.group(2))
            decls.enums[m.group(3)] = values
            decls.enum_values.update(values)
            continue
        m = re.match(r"^static const int (\w+)\s*(?:=\s*(.+))?$", st)
        if m:
            decls.consts[m.group(1)] = parse_int(m.group(2)) if m.group(2) else None
            continue
        if st.startswith("typedef "):
            fptr = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", st)
            name = fptr.group(1) if fptr else re.findall(r"\w+", st)[-1]
            decls.typedefs[name] = norm_type(st)
            continue
        m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)$", st)
        if m and not st.startswith(("extern ", "}")):
            ret, name, params = m.groups()
            sig = "%s %s(%s)" % (norm_type(ret), name, ", ".join(norm_param(p) for p in split_params(params)))
            decls.functions[name] = sig
            continue
        decls.other.append(st)
    return decls


def header_files():
    return sorted(p for p in INCLUDE.rglob("*.h"))


def parse_headers(paths=None):
    decls = Decls()
    for p in paths or header_files():
        parse(p.read_text(encoding="utf-8"), decls)
    return decls


def compare(headers, cdef):
    """List of human-readable differences between header and cdef declarations (empty: identical)."""
    problems = []
    for name, sig in sorted(headers.functions.items()):
        if name not in cdef.functions:
            problems.append("function missing from _cdef.h: %s" % sig)
        elif cdef.functions[name] != sig:
            problems.append("signature differs for %s: header %r, cdef %r" % (name, sig, cdef.functions[name]))
    for name in sorted(set(cdef.functions) - set(headers.functions)):
        problems.append("function in _cdef.h but in no header: %s" % cdef.functions[name])
    for name, values in sorted(headers.enums.items()):
        if name not in cdef.enums:
            problems.append("enum missing from _cdef.h: %s" % name)
        elif cdef.enums[name] != values:
            problems.append("enum %s differs: header %r, cdef %r" % (name, values, cdef.enums[name]))
    for name in sorted(set(cdef.enums) - set(headers.enums)):
        problems.append("enum in _cdef.h but in no header: %s" % name)
    for kind in ("defines", "consts"):
        h, c = getattr(headers, kind), getattr(cdef, kind)
        for name in sorted(set(h) - set(c)):
            problems.append("%s missing from _cdef.h: %s" % (kind[:-1], name))
        for name in sorted(set(c) - set(h)):
            problems.append("%s in _cdef.h but in no header: %s" % (kind[:-1], name))
    for name, decl in sorted(headers.typedefs.items()):
        if name not in cdef.typedefs:
            problems.append("typedef missing from _cdef.h: %s" % decl)
        elif cdef.typedefs[name] != decl:
            problems.append("typedef %s differs: header %r, cdef %r" % (name, decl, cdef.typedefs[name]))
    for name in sorted(set(cdef.typedefs) - set(headers.typedefs)):
        problems.append("typedef in _cdef.h but in no header: %s" % cdef.typedefs[name])
    for st in headers.other:
        if st not in cdef.other:
            problems.append("header declaration of unknown kind not in _cdef.h: %s" % st)
    for st in cdef.other:
        if st not in headers.other:
            problems.append("_cdef.h declaration of unknown kind not in any header: %s" % st)
    return problems


@pytest.fixture(scope="module")
def headers():
    return parse_headers()


@pytest.fixture(scope="module")
def cdef():
    return parse(CDEF.read_text(encoding="utf-8"))


def test_parser_sees_the_headers(headers):
    # Guards against a parser that silently finds nothing.
    assert len(header_files()) >= 10
    assert len(headers.functions) > 60
    assert headers.functions["aclnnSiluBackward"] == (
        "aclnnStatus aclnnSiluBackward(void *, uint64_t, aclOpExecutor *, aclrtStream)"
    )
    assert headers.functions["aclCreateTensorList"] == (
        "aclTensorList * aclCreateTensorList(const aclTensor * const *, uint64_t)"
    )
    assert headers.enums["aclDataType"]["ACL_BF16"] == 27
    assert headers.enum_values["ACL_STREAM_STATUS_RESERVED"] == 0xFFFF
    assert headers.defines["ACLNN_ERR_PARAM_INVALID"] == 161002
    assert headers.defines["ACL_UNKNOWN_RANK"] == 0xFFFFFFFFFFFFFFFE
    assert headers.consts["ACL_ERROR_REPEAT_INITIALIZE"] == 100002
    assert "OK" not in headers.names()  # C++-only constexpr
    assert headers.other == []


def test_cdef_matches_headers(headers, cdef):
    problems = compare(headers, cdef)
    assert not problems, "\n".join(problems)


def test_cdef_parses_with_cffi():
    cffi = pytest.importorskip("cffi")
    cffi.FFI().cdef(CDEF.read_text(encoding="utf-8"))


def test_a_new_header_function_is_caught(headers, cdef):
    extra = parse(
        "ACLNN_API aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclTensor *out,\n"
        "    uint64_t *workspaceSize, aclOpExecutor **executor);\n#define ACLNN_FOO 7\n"
    )
    grown = parse_headers()
    grown.functions.update(extra.functions)
    grown.defines.update(extra.defines)
    problems = compare(grown, cdef)
    assert any("aclnnFooGetWorkspaceSize" in p for p in problems)
    assert any("ACLNN_FOO" in p for p in problems)


def test_a_changed_signature_is_caught(cdef):
    grown = parse_headers()
    grown.functions["aclrtFree"] = "aclError aclrtFree(void * *)"
    assert any("aclrtFree" in p for p in compare(grown, cdef))


def test_parser_handles_other_declaration_forms():
    d = parse(
        "typedef void (*aclrtCallback)(void *userData);\n"
        "typedef struct aclrtUtilizationInfo { int32_t cubeUtilization; int32_t vectorUtilization; } "
        "aclrtUtilizationInfo;\n"
        "typedef enum { A = 1, B, C = 0x10, D } e_t;\n"
    )
    assert set(d.typedefs) == {"aclrtCallback", "aclrtUtilizationInfo"}
    assert d.enums["e_t"] == {"A": 1, "B": 2, "C": 16, "D": 17}


def test_normalization():
    d = parse(
        "/* c */ ACL_FUNC_VISIBILITY const char* f(const size_t  index, const aclrtStream s,\n"
        "   const aclTensor* const* v, int64_t **p); // trailing\n"
    )
    assert d.functions["f"] == "const char * f(size_t, aclrtStream, const aclTensor * const *, int64_t * *)"


def test_lib_values_match_headers(headers):
    aclnn_emu = pytest.importorskip("aclnn_emu")
    lib = aclnn_emu.lib
    expected = {}
    expected.update(headers.enum_values)
    expected.update(headers.defines)
    expected.update(headers.consts)
    wrong = []
    for name, value in sorted(expected.items()):
        try:
            got = getattr(lib, name)
        except AttributeError:
            wrong.append("%s missing from lib" % name)
            continue
        if got != value:
            wrong.append("%s: lib %r, header %r" % (name, got, value))
    assert not wrong, "\n".join(wrong)


def test_lib_has_every_function(headers):
    aclnn_emu = pytest.importorskip("aclnn_emu")
    missing = [name for name in headers.functions if not callable(getattr(aclnn_emu.lib, name, None))]
    assert not missing
