// Package kubetest runs tests against a real Kubernetes API server.
//
// The control plane is a kube-apiserver and an etcd built from source by
// hack/build-testbin.sh (`make testbin`) into .cache/testbin/ at the
// repository root, started through controller-runtime's envtest. The Flux
// CRDs copied by the same script (HelmRelease helm.toolkit.fluxcd.io/v2,
// Kustomization kustomize.toolkit.fluxcd.io/v1 and the source-controller
// kinds) are installed and established before [Config] returns. There are no
// controllers: nothing reconciles the objects a test creates, namespaces are
// never finalised and no ServiceAccount is created automatically, so tests set
// the status subresource themselves when they need one.
//
// One control plane is started per test binary, on first use, and shared by
// all the tests of the package; each test isolates itself in its own
// namespace. A package that uses it stops the server in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		cfg := kubetest.Config(t)             // cluster admin
//		ns := kubetest.Namespace(t, cfg)      // fresh namespace for this test
//		c := kubernetes.NewForConfigOrDie(cfg)
//		...
//	}
//
// # Admin and restricted clients
//
// [Config] returns a configuration for a user in the system:masters group,
// which bypasses authorization: use it to set up fixtures. The API server
// runs with RBAC authorization, so a restricted client is an impersonating
// copy of the admin configuration:
//
//	restricted := kubetest.Impersonate(cfg, "alice", "sylva-operators")
//
// Requests made with restricted are authorized as user "alice" in group
// "sylva-operators" (plus system:authenticated) and are refused with 403
// Forbidden until the test grants them a Role or ClusterRole through a
// binding created with the admin configuration.
//
// # Binaries
//
// When the binaries are missing, [Config] fails the test with a message
// naming `make testbin`; it never skips. [Dir] tells where they are looked
// for, and the environment variable SYLVA_PLANNER_TESTBIN overrides it.
// Setting KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true (envtest's switch)
// streams the kube-apiserver and etcd logs to standard error; in any case
// the end of the logs is included in the error when the control plane
// cannot start.
//
// Starting the control plane takes about 5 to 10 seconds; [Restart] restarts
// only the API server, keeping etcd and so every object.
package kubetest
