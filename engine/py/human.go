package py

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var humanRe = regexp.MustCompile(`^([0-9]*\.?[0-9]+)(?:\s*([A-Za-z]+))?\s*$`)

var sizeRanges = map[string]float64{"Y": 1 << 80, "Z": 1 << 70, "E": 1 << 60, "P": 1 << 50, "T": 1 << 40, "G": 1 << 30, "M": 1 << 20, "K": 1 << 10, "B": 1}

// unitNames are each size prefix's long name and symbol, for bytes and
// for bits.
var unitNames = map[string][2][2]string{
	"B": {{"byte", "B"}, {"bit", "b"}}, "K": {{"kilobyte", "KB"}, {"kilobit", "Kb"}},
	"M": {{"megabyte", "MB"}, {"megabit", "Mb"}}, "G": {{"gigabyte", "GB"}, {"gigabit", "Gb"}},
	"T": {{"terabyte", "TB"}, {"terabit", "Tb"}}, "P": {{"petabyte", "PB"}, {"petabit", "Pb"}},
	"E": {{"exabyte", "EB"}, {"exabit", "Eb"}}, "Z": {{"zetabyte", "ZB"}, {"zetabit", "Zb"}},
	"Y": {{"yottabyte", "YB"}, {"yottabit", "Yb"}},
}

// HumanToBytes is ansible-core's human_to_bytes (module_utils.common.text.
// formatters): "10M" is 10485760, a bare number is taken in defaultUnit
// when one is given, and with isbits the units are bits ("10Mb").
func HumanToBytes(s, defaultUnit string, isbits bool) (int, error) {
	m := humanRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("human_to_bytes() can't interpret following string: %s", s)
	}
	num, _ := strconv.ParseFloat(m[1], 64)
	unit := m[2]
	if unit == "" {
		unit = defaultUnit
	}
	if unit == "" {
		return int(RoundFloat(num, 0)), nil
	}
	key := strings.ToUpper(unit[:1])
	limit, ok := sizeRanges[key]
	if !ok {
		return 0, fmt.Errorf("human_to_bytes() failed to convert %s (unit = %s). The suffix must be one of Y, Z, E, P, T, G, M, K, B", s, unit)
	}
	if len(unit) > 1 {
		flag := 0
		cls, clsName := "B", "byte"
		if isbits {
			flag, cls, clsName = 1, "b", "bit"
		}
		g := unitNames[key][flag]
		if strings.ToLower(unit) != g[0] && unit != g[1] {
			expect := fmt.Sprintf("expect %s%s or %s", key, cls, key)
			if key == "B" {
				expect = fmt.Sprintf("expect %s or %s", cls, clsName)
			}
			return 0, fmt.Errorf("human_to_bytes() failed to convert %s. Value is not a valid string (%s)", s, expect)
		}
	}
	return int(RoundFloat(num*limit, 0)), nil
}
