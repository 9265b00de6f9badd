//go:build tools

// The commands this module builds; the blank imports keep `go mod tidy` from dropping them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
