package k8sschema

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Decoded is the result of turning a Terraform value into a Go object.
type Decoded struct {
	// Unknown holds the JSON paths of values not known yet (plan time); they decode as zero.
	Unknown []*field.Path
	// Errs holds values that cannot be represented in the Go type (a bad quantity, an int32
	// overflow); the API server would reject them the same way.
	Errs field.ErrorList
}

// HasUnknown reports whether any value was unknown.
func (d *Decoded) HasUnknown() bool { return len(d.Unknown) > 0 }

// Decode writes the Terraform value v of object node n into dst, a pointer to n's Go type.
// Only the node's fields are read; other attributes of v are ignored.
func Decode(n *Node, v tftypes.Value, dst any, root *field.Path) *Decoded {
	d := &Decoded{}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("k8sschema.Decode: dst must be a non-nil pointer")
	}
	d.decodeFields(n, v, rv.Elem(), root)
	return d
}

func (d *Decoded) decodeFields(n *Node, v tftypes.Value, dst reflect.Value, p *field.Path) {
	if !v.IsKnown() {
		d.Unknown = append(d.Unknown, p)
		return
	}
	if v.IsNull() {
		return
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		d.Errs = append(d.Errs, field.InternalError(p, err))
		return
	}
	for _, f := range n.Fields {
		fv, ok := attrs[f.TFName]
		if !ok {
			continue
		}
		d.decode(f, fv, fieldByIndex(dst, f.index), childPath(p, f.JSONName))
	}
}

func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

// fieldByIndex walks into embedded pointers, allocating them as needed.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

func (d *Decoded) decode(n *Node, v tftypes.Value, dst reflect.Value, p *field.Path) {
	if !v.IsKnown() {
		d.Unknown = append(d.Unknown, p)
		return
	}
	if v.IsNull() {
		return
	}
	if n.Pointer {
		ptr := reflect.New(n.GoType)
		dst.Set(ptr)
		dst = ptr.Elem()
	}
	switch n.Kind {
	case KindString:
		var s string
		if err := v.As(&s); err != nil {
			d.Errs = append(d.Errs, field.InternalError(p, err))
			return
		}
		d.decodeString(n, s, dst, p)
	case KindBool:
		var b bool
		_ = v.As(&b)
		dst.SetBool(b)
	case KindInt:
		var bf big.Float
		_ = v.As(&bf)
		if !bf.IsInt() {
			d.Errs = append(d.Errs, field.Invalid(p, bf.Text('g', -1), "must be a whole number"))
			return
		}
		i, acc := bf.Int64()
		if acc != big.Exact && dst.Kind() == reflect.Int32 {
			d.Errs = append(d.Errs, field.Invalid(p, bf.Text('f', 0), "must fit in a 32-bit integer (-2147483648 to 2147483647)"))
			return
		}
		if acc != big.Exact {
			d.Errs = append(d.Errs, field.Invalid(p, bf.Text('f', 0), "must fit in a 64-bit integer (-9223372036854775808 to 9223372036854775807)"))
			return
		}
		if dst.Kind() == reflect.Int32 && (i > math.MaxInt32 || i < math.MinInt32) {
			d.Errs = append(d.Errs, field.Invalid(p, i, "must fit in a 32-bit integer (-2147483648 to 2147483647)"))
			return
		}
		switch dst.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if i < 0 {
				d.Errs = append(d.Errs, field.Invalid(p, i, "must not be negative"))
				return
			}
			dst.SetUint(uint64(i))
		default:
			dst.SetInt(i)
		}
	case KindFloat:
		var bf big.Float
		_ = v.As(&bf)
		f, _ := bf.Float64()
		dst.SetFloat(f)
	case KindList:
		var elems []tftypes.Value
		_ = v.As(&elems)
		s := reflect.MakeSlice(dst.Type(), len(elems), len(elems))
		for i, e := range elems {
			d.decode(n.Elem, e, s.Index(i), p.Index(i))
		}
		dst.Set(s)
	case KindMap:
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		m := reflect.MakeMapWithSize(dst.Type(), len(elems))
		for k, e := range elems {
			ev := reflect.New(dst.Type().Elem()).Elem()
			d.decode(n.Elem, e, ev, p.Key(k))
			m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
		}
		dst.Set(m)
	case KindObject:
		d.decodeFields(n, v, dst, p)
	}
}

func (d *Decoded) decodeString(n *Node, s string, dst reflect.Value, p *field.Path) {
	switch n.Format {
	case FormatQuantity:
		q, err := resource.ParseQuantity(s)
		if err != nil {
			d.Errs = append(d.Errs, field.Invalid(p, s, "must be a Kubernetes quantity such as \"500m\", \"2\" or \"16Gi\": "+err.Error()))
			return
		}
		dst.Set(reflect.ValueOf(q))
	case FormatIntOrString:
		dst.Set(reflect.ValueOf(ParseIntOrString(s)))
	case FormatTime:
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			d.Errs = append(d.Errs, field.Invalid(p, s, "must be an RFC 3339 time"))
			return
		}
		if n.GoType == microType {
			dst.Set(reflect.ValueOf(metav1.NewMicroTime(t)))
		} else {
			dst.Set(reflect.ValueOf(metav1.NewTime(t)))
		}
	case FormatDuration:
		du, err := time.ParseDuration(s)
		if err != nil {
			d.Errs = append(d.Errs, field.Invalid(p, s, "must be a duration such as \"30s\""))
			return
		}
		dst.Set(reflect.ValueOf(metav1.Duration{Duration: du}))
	case FormatBytes:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			d.Errs = append(d.Errs, field.Invalid(p, "<bytes>", "must be base64"))
			return
		}
		dst.SetBytes(b)
	default:
		dst.SetString(s)
	}
}

// ParseIntOrString reads an int-or-string written as a Terraform string: digits are a number,
// anything else ("10%") is a string, as the JSON form of the field would be.
func ParseIntOrString(s string) intstr.IntOrString {
	if i, err := strconv.ParseInt(s, 10, 32); err == nil {
		return intstr.FromInt32(int32(i))
	}
	return intstr.FromString(s)
}

// Encode turns the Go value src (a pointer to, or value of, n's Go type) into the Terraform
// value of object node n. Zero values of non-pointer scalars become null, as an unset field.
func Encode(n *Node, src any) tftypes.Value {
	rv := reflect.ValueOf(src)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return tftypes.NewValue(n.TFType(), nil)
		}
		rv = rv.Elem()
	}
	return encodeFields(n, rv)
}

func encodeFields(n *Node, rv reflect.Value) tftypes.Value {
	attrs := make(map[string]tftypes.Value, len(n.Fields))
	for _, f := range n.Fields {
		fv, ok := readField(rv, f.index)
		if !ok {
			attrs[f.TFName] = tftypes.NewValue(f.TFType(), nil)
			continue
		}
		attrs[f.TFName] = encode(f, fv)
	}
	return tftypes.NewValue(n.TFType(), attrs)
}

// readField follows index through embedded pointers; a nil embedded pointer means absent.
func readField(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func encode(n *Node, rv reflect.Value) tftypes.Value { return encodeValue(n, rv, false) }

// encodeValue encodes rv. A field's zero value is encoded as null (the field is unset: Go cannot
// tell the two apart); with keepZero, for an element of a list or map, which is never unset, it
// is the value itself: a label selector's `app: ""`, a node selector's `gpu: ""`, an argument "".
func encodeValue(n *Node, rv reflect.Value, keepZero bool) tftypes.Value {
	typ := n.TFType()
	if n.Pointer {
		if rv.IsNil() {
			return tftypes.NewValue(typ, nil)
		}
		rv = rv.Elem()
	}
	switch n.Kind {
	case KindString:
		s, null := encodeString(n, rv)
		if null && !keepZero {
			return tftypes.NewValue(typ, nil)
		}
		if null && n.Format == FormatQuantity {
			s = "0" // a zero quantity element, as resource.Quantity writes it
		}
		return tftypes.NewValue(typ, s)
	case KindBool:
		if !rv.Bool() && !n.Pointer && !keepZero {
			return tftypes.NewValue(typ, nil)
		}
		return tftypes.NewValue(typ, rv.Bool())
	case KindInt:
		var i int64
		switch rv.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			i = int64(rv.Uint())
		default:
			i = rv.Int()
		}
		if i == 0 && !n.Pointer && n.Mode != Computed && !keepZero {
			return tftypes.NewValue(typ, nil)
		}
		return tftypes.NewValue(typ, new(big.Float).SetInt64(i))
	case KindFloat:
		f := rv.Float()
		if f == 0 && !n.Pointer && !keepZero {
			return tftypes.NewValue(typ, nil)
		}
		return tftypes.NewValue(typ, big.NewFloat(f))
	case KindList:
		if rv.IsNil() {
			return tftypes.NewValue(typ, nil)
		}
		elems := make([]tftypes.Value, rv.Len())
		for i := range elems {
			elems[i] = encodeValue(n.Elem, rv.Index(i), true)
		}
		return tftypes.NewValue(typ, elems)
	case KindMap:
		if rv.IsNil() {
			return tftypes.NewValue(typ, nil)
		}
		elems := make(map[string]tftypes.Value, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			elems[it.Key().String()] = encodeValue(n.Elem, it.Value(), true)
		}
		return tftypes.NewValue(typ, elems)
	default:
		if !n.Pointer && rv.IsZero() && n.Mode != Computed && !keepZero {
			return tftypes.NewValue(typ, nil)
		}
		return encodeFields(n, rv)
	}
}

func encodeString(n *Node, rv reflect.Value) (string, bool) {
	switch n.Format {
	case FormatQuantity:
		q, _ := rv.Interface().(resource.Quantity)
		if q.IsZero() && !n.Pointer && q.Format == "" {
			return "", true
		}
		return q.String(), false
	case FormatIntOrString:
		v, _ := rv.Interface().(intstr.IntOrString)
		return v.String(), false
	case FormatTime:
		var t time.Time
		switch x := rv.Interface().(type) {
		case metav1.Time:
			t = x.Time
		case metav1.MicroTime:
			t = x.Time
		}
		if t.IsZero() {
			return "", true
		}
		return t.UTC().Format(time.RFC3339), false
	case FormatDuration:
		d, _ := rv.Interface().(metav1.Duration)
		return d.Duration.String(), false
	case FormatBytes:
		if rv.IsNil() {
			return "", true
		}
		return base64.StdEncoding.EncodeToString(rv.Bytes()), false
	default:
		s := rv.String()
		if s == "" && !n.Pointer {
			return "", true
		}
		return s, false
	}
}

// NullValue is the null value of node n.
func NullValue(n *Node) tftypes.Value { return tftypes.NewValue(n.TFType(), nil) }

// String renders a value for messages.
func String(v tftypes.Value) string { return fmt.Sprint(v) }
