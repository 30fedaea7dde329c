"""No function in chapters/, common/, exercises/, scripts/ or tests/ is over 120 lines: a longer one is a section driver or a
kernel that has become several ideas, and a student reading beside the lesson loses the thread
(run by ctest as docs.scripts_unit_tests).

A function is found the way a reader finds it: a line that ends a signature with `{` (after `)`,
`const`, `noexcept`, `override` or a trailing return type), not a control statement or a lambda;
its length runs to the brace that closes it, comments and string literals aside. Classes and
namespaces are not functions; a lambda counts towards the function that holds it."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 120
SUFFIXES = (".cpp", ".cu", ".hpp", ".cuh", ".h")

COMMENT = re.compile(r"//[^\n]*")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
CHARACTER = re.compile(r"'(?:\\.|[^'\\\n])*'")
SIGNATURE_END = re.compile(
    r"\)\s*(?:const)?\s*(?:noexcept)?\s*(?:override)?\s*(?:->\s*[\w:<>\s,*&]+)?\s*\{$")
NOT_A_FUNCTION = re.compile(r"(?:if|for|while|switch|else|do|catch|return)\b|[}\[]")
LAMBDA = re.compile(r"\[[^\]]*\]\s*\(")


def code_lines(text):
    """The text without comments and literals, line for line."""
    text = BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = COMMENT.sub("", text)
    text = STRING.sub('""', text)
    return CHARACTER.sub("''", text).split("\n")


def functions(text):
    """(first line, number of lines, signature line) of every function in `text`."""
    lines = code_lines(text)
    found = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if SIGNATURE_END.search(line) and not NOT_A_FUNCTION.match(line) \
                and not LAMBDA.search(line):
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0:
                    break
                j += 1
            found.append((i + 1, j - i + 1, line))
            i = j
        i += 1
    return found


def long_functions(root, limit=LIMIT):
    """["path:line: N lines: signature"] for every function over `limit` lines."""
    result = []
    for folder in ("chapters", "common", "exercises", "scripts", "tests"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            for first, count, line in functions(path.read_text(encoding="utf-8")):
                if count > limit:
                    result.append(f"{path.relative_to(root)}:{first}: {count} lines: {line}")
    return result


class FunctionLengthTest(unittest.TestCase):
    def test_no_function_over_the_limit(self):
        found = long_functions(ROOT)
        self.assertEqual(found, [], f"split these into functions of at most {LIMIT} lines:\n" +
                         "\n".join(found))

    def test_the_finder_counts_what_a_reader_counts(self):
        text = "\n".join([
            "int f(int x) {",                   # 1: a function of 8 lines
            "    if (x) {",
            "        auto g = [&](int y) {",     # a lambda: part of f
            "            return y;  // }",       # a brace in a comment does not count
            "        };",
            "    }",
            "    return \"}\" [0];",             # nor one in a string
            "}",
            "struct S {",                        # not a function
            "    int m() const {",               # 10: a member function of 3 lines
            "        return 1;",
            "    }",
            "};",
        ])
        self.assertEqual([(first, count) for first, count, _ in functions(text)],
                         [(1, 8), (10, 3)])


if __name__ == "__main__":
    unittest.main()
