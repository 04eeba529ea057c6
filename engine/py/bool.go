package py

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// BooleanChoices lists the values Boolean accepts as ansible-core's error
// message prints its BOOLEANS set. Python prints that set in an order that
// depends on its string hashing; this is the order under PYTHONHASHSEED=0,
// the one engine/module/argspec's recorded cases use.
const BooleanChoices = "0, 'y', 'true', 1, 'f', 'n', 'off', 't', '0', 'no', 'false', '1', 'on', 'yes'"

// BooleanError is the TypeError of ansible-core's strict boolean() for a
// value that is none of BooleanChoices.
type BooleanError struct{ Value any }

func (e *BooleanError) Error() string {
	return fmt.Sprintf("The value '%s' is not a valid boolean. Valid booleans include: %s", value.Str(e.Value), BooleanChoices)
}

// Boolean is ansible-core's strict boolean() (module_utils.parsing.
// convert_bool): a bool is itself; a string is compared lower-cased and
// stripped; 1 and 0 (int or float) are True and False; anything else fails
// with a *BooleanError.
func Boolean(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.TrimFunc(strings.ToLower(x), IsSpace) {
		case "y", "yes", "on", "1", "true", "t":
			return true, nil
		case "n", "no", "off", "0", "false", "f":
			return false, nil
		}
	case int, float64:
		f, _ := value.AsFloat(x)
		if f == 1 || f == 0 {
			return f == 1, nil
		}
	}
	return false, &BooleanError{Value: v}
}

// LenientBoolean is boolean(v, strict=False) with a flag saying whether v
// was one of the recognised values; an unrecognised one counts as false.
// Keywords and settings read booleans this way.
func LenientBoolean(v any) (b bool, known bool) {
	b, err := Boolean(v)
	return b, err == nil
}
