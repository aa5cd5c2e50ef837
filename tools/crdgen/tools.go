//go:build tools

// Package crdgen pins the code generators used by generate.sh. It is a
// separate module so that controller-tools' dependencies never unify with the
// provider's through MVS.
package crdgen

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
