package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
)

// stateToMsgPack re-encodes a stored state (JSON, as Terraform keeps it) as the msgpack value of
// type typ, with the result tftypes would give (decoding the JSON while ignoring attributes the
// type no longer has, then encoding it) but without building tftypes values: for a schema of
// ~2,300 attributes that is most of the cost of a state upgrade, which Terraform requests for
// every resource on every plan. Types other than primitives, lists, sets, maps and objects, and
// any value that does not fit its type, return an error: the caller falls back to tftypes, which
// reports it properly.
func stateToMsgPack(typ tftypes.Type, raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	if err := encodeState(enc, typ, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeState(enc *msgpack.Encoder, typ tftypes.Type, v any) error {
	if v == nil {
		return enc.EncodeNil()
	}
	switch t := typ.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%T for an object", v)
		}
		keys := make([]string, 0, len(t.AttributeTypes))
		for k := range t.AttributeTypes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if err := enc.EncodeMapLen(len(keys)); err != nil {
			return err
		}
		for _, k := range keys {
			if err := enc.EncodeString(k); err != nil {
				return err
			}
			if err := encodeState(enc, t.AttributeTypes[k], m[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case tftypes.List:
		return encodeStateList(enc, t.ElementType, v)
	case tftypes.Set:
		return encodeStateList(enc, t.ElementType, v)
	case tftypes.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%T for a map", v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if err := enc.EncodeMapLen(len(keys)); err != nil {
			return err
		}
		for _, k := range keys {
			if err := enc.EncodeString(k); err != nil {
				return err
			}
			if err := encodeState(enc, t.ElementType, m[k]); err != nil {
				return fmt.Errorf("[%q]: %w", k, err)
			}
		}
		return nil
	}
	switch {
	case typ.Is(tftypes.String):
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%T for a string", v)
		}
		return enc.EncodeString(s)
	case typ.Is(tftypes.Bool):
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%T for a bool", v)
		}
		return enc.EncodeBool(b)
	case typ.Is(tftypes.Number):
		var text string
		switch n := v.(type) {
		case json.Number:
			text = string(n)
		case string:
			text = n
		default:
			return fmt.Errorf("%T for a number", v)
		}
		f, _, err := big.ParseFloat(text, 10, 512, big.ToNearestEven)
		if err != nil {
			return err
		}
		return encodeNumber(enc, f)
	}
	return fmt.Errorf("unsupported type %s", typ)
}

func encodeStateList(enc *msgpack.Encoder, elem tftypes.Type, v any) error {
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%T for a list", v)
	}
	if err := enc.EncodeArrayLen(len(l)); err != nil {
		return err
	}
	for i, x := range l {
		if err := encodeState(enc, elem, x); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// encodeNumber encodes n as tftypes does: an int64 when exact, else a float64 when exact, else
// its decimal text.
func encodeNumber(enc *msgpack.Encoder, n *big.Float) error {
	if n.IsInf() {
		return enc.EncodeFloat64(math.Inf(n.Sign()))
	}
	if i, acc := n.Int64(); acc == big.Exact {
		return enc.EncodeInt(i)
	}
	if f, acc := n.Float64(); acc == big.Exact && !n.IsInt() {
		return enc.EncodeFloat64(f)
	}
	return enc.EncodeString(n.Text('f', -1))
}

// stateMetadata reads metadata.namespace, metadata.name and metadata.resource_version from a
// msgpack-encoded state without decoding the rest. ok is false when the state is not an object
// with a known metadata.name.
func stateMetadata(mp []byte) (namespace, name, resourceVersion string, ok bool) {
	dec := msgpack.NewDecoder(bytes.NewReader(mp))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return "", "", "", false
	}
	for i := 0; i < n; i++ {
		key, err := dec.DecodeString()
		if err != nil {
			return "", "", "", false
		}
		if key != "metadata" {
			if dec.Skip() != nil {
				return "", "", "", false
			}
			continue
		}
		m, err := dec.DecodeMapLen()
		if err != nil {
			return "", "", "", false
		}
		for j := 0; j < m; j++ {
			k, err := dec.DecodeString()
			if err != nil {
				return "", "", "", false
			}
			var dst *string
			switch k {
			case "name":
				dst = &name
			case "namespace":
				dst = &namespace
			case "resource_version":
				dst = &resourceVersion
			default:
				if dec.Skip() != nil {
					return "", "", "", false
				}
				continue
			}
			// An unknown value (a msgpack extension) is not a string: no shortcut then.
			if *dst, err = dec.DecodeString(); err != nil {
				return "", "", "", false
			}
		}
		return namespace, name, resourceVersion, name != ""
	}
	return "", "", "", false
}
