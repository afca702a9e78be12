package clitext

// Str is v when it is a string (a JSON row's time or text), else "".
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// Clip cuts s to at most n runes, the last an ellipsis.
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
