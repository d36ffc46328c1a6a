// Command image writes the sylva-planner OCI image as a tarball, offline and
// reproducibly: one layer holding the static binary at /sylva-planner, run
// as the non-root user 65532, no shell, no package manager, every timestamp
// at the Unix epoch. The same binary gives the same image digest.
//
// Usage: go run . -binary PATH -ref REGISTRY/NAME:TAG -out FILE [-arch amd64]
//
// It prints the image digest on stdout. The tarball loads with
// `docker load`, and pushes with `crane push FILE REF`.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	binary := flag.String("binary", "", "static linux `PATH` of the sylva-planner binary")
	ref := flag.String("ref", "", "image `REFERENCE` written into the tarball, for example registry.gitlab.com/sylva-projects/sylva-planner:v0.1.0")
	out := flag.String("out", "", "tarball `FILE` to write")
	arch := flag.String("arch", "amd64", "`GOARCH` the binary was built for")
	version := flag.String("version", "", "org.opencontainers.image.version label")
	flag.Parse()
	if *binary == "" || *ref == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "image: -binary, -ref and -out are required")
		os.Exit(1)
	}
	digest, err := write(*binary, *ref, *out, *arch, *version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Println(digest)
}

func write(binary, ref, out, arch, version string) (string, error) {
	tag, err := name.NewTag(ref)
	if err != nil {
		return "", fmt.Errorf("-ref %s: %w", ref, err)
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		return "", err
	}
	layerTar, err := layerOf(data)
	if err != nil {
		return "", err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return "", err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cfg.Config.Entrypoint = []string{"/sylva-planner"}
	cfg.Config.User = "65532:65532"
	cfg.Config.WorkingDir = "/"
	cfg.Config.Env = []string{"HOME=/"}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "sylva-planner",
		"org.opencontainers.image.source":   "https://gitlab.com/sylva-projects/sylva-planner",
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	if version != "" {
		cfg.Config.Labels["org.opencontainers.image.version"] = version
	}
	cfg.History = nil
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return "", err
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	tmp := out + ".tmp"
	if err := tarball.WriteToFile(tmp, tag, img); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	return digest.String(), nil
}

// layerOf returns the single layer: the binary at /sylva-planner, owned by
// root and executable by all, and /tmp for libraries that want one; fixed
// timestamps so that the layer's digest depends on the binary alone.
func layerOf(binary []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0).UTC()
	headers := []*tar.Header{
		{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: epoch, Format: tar.FormatPAX},
		{Name: "sylva-planner", Typeflag: tar.TypeReg, Mode: 0o555, Size: int64(len(binary)), ModTime: epoch, Format: tar.FormatPAX},
	}
	for _, h := range headers {
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(binary); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
