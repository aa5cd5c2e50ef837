package acctest

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// HCL renders a known Terraform value as an HCL expression: objects as `{ name = ... }` (null
// attributes left out), maps as `{ "key" = ... }` with quoted keys, lists, sets and tuples as
// `[...]`, strings quoted with HCL escapes (including `$${` and `%%{`, so that no template
// interpolation happens), numbers and booleans as literals, null as `null`. indent is the
// indentation (in spaces) of the line the expression starts on; nested lines are indented two
// more spaces per level. It panics on an unknown value, which has no HCL spelling.
func HCL(v tftypes.Value, indent int) string {
	var b strings.Builder
	writeHCL(&b, v, indent)
	return b.String()
}

// ResourceHCL renders a resource block of the given type and name whose attributes are the
// non-null top-level attributes of attrs, an object value.
func ResourceHCL(typeName, name string, attrs tftypes.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "resource %s %s {\n", quoteHCL(typeName), quoteHCL(name))
	for _, k := range sortedAttrs(attrs) {
		b.WriteString("  ")
		b.WriteString(attrName(k.name))
		b.WriteString(" = ")
		writeHCL(&b, k.value, 2)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.String()
}

type namedValue struct {
	name  string
	value tftypes.Value
}

// sortedAttrs returns the non-null attributes of an object value, sorted by name.
func sortedAttrs(v tftypes.Value) []namedValue {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		panic("acctest.HCL: an unknown value has no HCL spelling")
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		panic(fmt.Sprintf("acctest.HCL: not an object or map: %v", err))
	}
	out := make([]namedValue, 0, len(m))
	for k, x := range m {
		if x.IsNull() {
			continue
		}
		out = append(out, namedValue{k, x})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// attrName is an object attribute name: bare when it is an identifier, quoted otherwise.
func attrName(s string) string {
	if identifier.MatchString(s) && s != "null" && s != "true" && s != "false" {
		return s
	}
	return quoteHCL(s)
}

func pad(n int) string { return strings.Repeat(" ", n) }

func writeHCL(b *strings.Builder, v tftypes.Value, indent int) {
	if !v.IsKnown() {
		panic("acctest.HCL: an unknown value has no HCL spelling")
	}
	if v.IsNull() {
		b.WriteString("null")
		return
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		b.WriteString(quoteHCL(s))
	case typ.Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		b.WriteString(numberHCL(&f))
	case typ.Is(tftypes.Bool):
		var x bool
		_ = v.As(&x)
		fmt.Fprint(b, x)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		if len(elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for _, e := range elems {
			b.WriteString(pad(indent + 2))
			writeHCL(b, e, indent+2)
			b.WriteString(",\n")
		}
		b.WriteString(pad(indent))
		b.WriteString("]")
	case typ.Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		if len(m) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{\n")
		for _, k := range keys {
			b.WriteString(pad(indent + 2))
			b.WriteString(quoteHCL(k))
			b.WriteString(" = ")
			writeHCL(b, m[k], indent+2)
			b.WriteString("\n")
		}
		b.WriteString(pad(indent))
		b.WriteString("}")
	case typ.Is(tftypes.Object{}):
		attrs := sortedAttrs(v)
		if len(attrs) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for _, a := range attrs {
			b.WriteString(pad(indent + 2))
			b.WriteString(attrName(a.name))
			b.WriteString(" = ")
			writeHCL(b, a.value, indent+2)
			b.WriteString("\n")
		}
		b.WriteString(pad(indent))
		b.WriteString("}")
	default:
		panic(fmt.Sprintf("acctest.HCL: unsupported type %s", typ))
	}
}

// numberHCL writes a number literal: integers in full, other values in the shortest form that
// reads back as the same float64 (HCL numbers are arbitrary precision, but the provider's values
// come from int64 and float64 fields).
func numberHCL(f *big.Float) string {
	if f.IsInf() {
		panic("acctest.HCL: infinite number")
	}
	if f.IsInt() {
		return f.Text('f', 0)
	}
	// HCL reads 1e+20 and 1.5e-07 as numbers.
	return f.Text('g', -1)
}

// quoteHCL quotes s as an HCL string literal. Besides the usual escapes, "${" and "%{" start
// template sequences in HCL and are written "$${" and "%%{".
func quoteHCL(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteRune(r)
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError && size == 1:
			// Invalid UTF-8: Terraform strings are Unicode, so write the replacement character.
			b.WriteString(`\uFFFD`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}
