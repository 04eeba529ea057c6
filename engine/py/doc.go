// Package py reproduces the Python value semantics that Ansible's output
// depends on and that are not Jinja2's own: the methods of str, list and
// dict, %-formatting and str.format, operators and comparisons, int(),
// float() and bool() conversions, strftime and strptime, the json and PyYAML
// codecs with Python's error messages, CPython's set and hash ordering, the
// Mersenne Twister behind random.Random, Python regular expressions
// translated to RE2, posixpath, urllib's urlsplit and more.
//
// Values are those of engine/value (nil, bool, int, *big.Int, float64,
// string, []any, value.Tuple, *value.Dict) plus the Python objects defined
// here (Range, Datetime, Timedelta). Functions fail with *Error, whose
// message is the one CPython (or the Python library) gives.
package py
