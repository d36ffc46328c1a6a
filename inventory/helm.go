package inventory

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Bounds of reading Helm releases, in bytes of release JSON (what Helm's
// stored release decompresses to).
//
// A release Secret holds at most 1 MiB (the API server's limit on a
// Secret), so at most about 768 KiB of gzip once the base64 is taken off.
// Release JSON compresses about 4 to 8 times (8.0 for the CRDs of
// .cache/testbin, 4.4 for the same files base64-encoded, as a release
// stores its chart's files), and the largest reported real release, one
// that no longer fits in a Secret (helm/helm#11493), was 6.56 MB. A
// release of more than MaxReleaseBytes is then no release Helm could have
// stored: a gzip bomb (1 KiB of gzip can decompress to 1 MiB). Together,
// the newest revisions of a hundred releases of a few hundred KiB each
// stay far below MaxReleasesBytes, which bounds what any number of
// Secrets can cost.
//
// What the manifests of all releases may add is bounded too: at most
// MaxReleasesObjects objects, and MaxReleasesParsed bytes of documents
// that need the YAML parser (pods and workloads, or anything headerOf does
// not read). A Sylva management cluster runs about a hundred releases of
// tens to hundreds of objects, a few workloads each.
const (
	MaxReleaseBytes    = 16 << 20
	MaxReleasesBytes   = 128 << 20
	MaxReleasesObjects = 50000
	MaxReleasesParsed  = 8 << 20
)

// CheckManifestReleases is the check of the Helm releases of manifests
// (Scan); live, package inventory/inventorykube reports its own, helm-releases.
const CheckManifestReleases = "manifest-helm-releases"

// releaseType is the type of a Helm 3 release Secret.
const releaseType = "helm.sh/release.v1"

// secretPrefix starts the name of every release Secret Helm 3 writes:
// sh.helm.release.v1.NAME.vREVISION.
const secretPrefix = "sh.helm.release.v1."

// ReleaseSecret is a Helm release Secret as far as choosing which to read
// needs: its namespace, name and labels (Helm's secret driver sets name,
// owner, status and version).
type ReleaseSecret struct {
	Namespace, Name string
	Labels          map[string]string
}

// Release returns the release the Secret stores a revision of (key:
// namespace/name of the release) and the revision, from Helm's name and
// version labels, else from the Secret's name; current is false when the
// status label says the revision is not the one that runs (superseded,
// failed, pending-*, uninstalling, uninstalled). A Secret without a
// status label (a dump that dropped the labels) may be current.
func (s ReleaseSecret) Release() (key string, revision int, current bool) {
	name, rev := s.Labels["name"], -1
	if v, err := strconv.Atoi(s.Labels["version"]); err == nil {
		rev = v
	}
	if rest, ok := strings.CutPrefix(s.Name, secretPrefix); ok {
		if i := strings.LastIndex(rest, ".v"); i > 0 {
			if name == "" {
				name = rest[:i]
			}
			if v, err := strconv.Atoi(rest[i+2:]); err == nil && rev < 0 {
				rev = v
			}
		}
	}
	if name == "" {
		// Neither the labels nor the name say the release: the Secret is
		// a release of its own.
		name = s.Name
	}
	status, labelled := s.Labels["status"]
	return s.Namespace + "/" + name, rev, !labelled || status == "deployed"
}

// NewestReleases returns which of secrets to read, by index in secrets:
// of each release, the newest revision that may run (Release); two
// Secrets of the same revision, the first. Superseded and failed
// revisions are left out, before anything is decompressed. The indexes
// are in the order of secrets.
func NewestReleases(secrets []ReleaseSecret) []int {
	best := map[string]int{}
	for i, s := range secrets {
		key, rev, current := s.Release()
		if !current {
			continue
		}
		if j, ok := best[key]; !ok || rev > revisionOf(secrets[j]) {
			best[key] = i
		}
	}
	out := make([]int, 0, len(best))
	for i := range secrets {
		key, _, current := secrets[i].Release()
		if current && best[key] == i {
			out = append(out, i)
		}
	}
	return out
}

func revisionOf(s ReleaseSecret) int {
	_, rev, _ := s.Release()
	return rev
}

// pendingRelease is a release Secret of a manifest file, read once every
// file is (readPending).
type pendingRelease struct {
	secret ReleaseSecret
	file   string
	// stored is data.release as the file holds it: the Secret's base64
	// of Helm's stored release.
	stored string
}

// offerRelease counts the release Secret o (m as decoded from file) and
// keeps it for readPending unless its status says it does not run.
func (inv *Inventory) offerRelease(file string, o Object, m map[string]any) {
	inv.ReleaseSecrets++
	s := ReleaseSecret{Namespace: o.Namespace, Name: o.Name, Labels: o.Labels}
	if _, _, current := s.Release(); !current {
		return
	}
	data, _ := m["data"].(map[string]any)
	stored, _ := data["release"].(string)
	inv.pending = append(inv.pending, pendingRelease{secret: s, file: file, stored: stored})
}

// readPending reads the manifest of the newest deployed revision of each
// release among the pending Secrets, in the order of the files.
func (inv *Inventory) readPending() {
	secrets := make([]ReleaseSecret, len(inv.pending))
	for i, p := range inv.pending {
		secrets[i] = p.secret
	}
	for _, i := range NewestReleases(secrets) {
		p := inv.pending[i]
		name := p.file + " (" + objectName(Object{Namespace: p.secret.Namespace, Name: p.secret.Name}) + ")"
		stored, err := base64.StdEncoding.DecodeString(p.stored)
		if err != nil {
			_ = inv.skipRelease(name, fmt.Errorf("data.release is not base64: %w", err))
			continue
		}
		inv.pending[i].stored = ""
		_ = inv.readRelease(name, p.file+"#release", stored)
	}
	inv.pending = nil
}

// AddHelmRelease reads the manifest of a Helm 3 release Secret's
// data.release value (Helm's stored release, as a typed client returns it:
// base64 of gzip of the release JSON) and adds its objects, marked
// "#release" with name. Only the newest deployed revision of a release
// needs reading (NewestReleases). A release that does not decode, that
// decompresses to more than MaxReleaseBytes, or past MaxReleasesBytes with
// the releases added before, is listed in SkippedReleases and returned as
// an error.
func (inv *Inventory) AddHelmRelease(name string, release []byte) error {
	inv.ReleaseSecrets++
	return inv.readRelease(name, name+"#release", release)
}

// errReleaseTooLarge is returned by releaseManifest when the release
// decompresses to more than its limit.
var errReleaseTooLarge = errors.New("release too large")

// readRelease decodes stored, the release of the Secret name, within the
// bounds, and adds the objects of its manifest to file.
func (inv *Inventory) readRelease(name, file string, stored []byte) error {
	left := MaxReleasesBytes - inv.releaseBytes
	if left <= 0 {
		return inv.skipRelease(name, fmt.Errorf("not decompressed: the releases read before it decompressed the %s all Helm releases may", mib(MaxReleasesBytes)))
	}
	limit := min(MaxReleaseBytes, left)
	manifest, n, err := releaseManifest(stored, limit)
	inv.releaseBytes += n
	switch {
	case errors.Is(err, errReleaseTooLarge) && limit == MaxReleaseBytes:
		return inv.skipRelease(name, fmt.Errorf("decompresses to more than %s, more than any release a Secret (at most 1 MiB) can hold", mib(MaxReleaseBytes)))
	case errors.Is(err, errReleaseTooLarge):
		return inv.skipRelease(name, fmt.Errorf("decompresses past the %s all Helm releases may, with the releases read before it", mib(MaxReleasesBytes)))
	case err != nil:
		return inv.skipRelease(name, fmt.Errorf("does not decode: %w", err))
	}
	inv.Releases++
	if err := inv.addManifest(file, []byte(manifest)); err != nil {
		return inv.skipRelease(name, err)
	}
	return nil
}

// addManifest adds the objects of a release manifest to file, within the
// bounds MaxReleasesObjects and MaxReleasesParsed; the objects before the
// document that does not parse or passes a bound are kept. A document
// whose body addObject does not read is taken from its header alone,
// without a YAML parser (headerOf), as Scan does for the files: the
// manifests of real releases are mostly such objects (CRDs, RBAC,
// services, config), and the YAML parser reads only about 2 MiB a second
// of small documents.
func (inv *Inventory) addManifest(file string, manifest []byte) error {
	for _, doc := range yamldoc.Split(manifest) {
		if inv.releaseObjects >= MaxReleasesObjects {
			return fmt.Errorf("not read whole: the releases read hold %d objects, as many as all Helm releases may", MaxReleasesObjects)
		}
		if h, ok := headerOf(doc); ok && !bodyKinds[h.Kind] {
			inv.Objects = append(inv.Objects, Object{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, Name: h.Name, Labels: h.Labels, File: file})
			inv.releaseObjects++
			continue
		}
		if inv.releaseParsed+int64(len(doc)) > MaxReleasesParsed {
			return fmt.Errorf("not read whole: its pods and workloads pass the %s of YAML all Helm releases may have parsed", mib(MaxReleasesParsed))
		}
		inv.releaseParsed += int64(len(doc))
		n := len(inv.Objects)
		if err := inv.addDocument(file, doc, 1); err != nil {
			return fmt.Errorf("manifest does not parse: %w", err)
		}
		inv.releaseObjects += len(inv.Objects) - n
	}
	return nil
}

// skipRelease lists the release Secret name in SkippedReleases with why,
// and returns why.
func (inv *Inventory) skipRelease(name string, why error) error {
	inv.SkippedReleases = append(inv.SkippedReleases, name+": "+why.Error())
	return why
}

func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

// magicGzip starts a gzip stream.
var magicGzip = []byte{0x1f, 0x8b, 0x08}

// releaseManifest returns the manifest of a release as Helm 3's Secret and
// ConfigMap drivers store it: base64 of gzip of the release JSON, or of the
// bare JSON for releases stored before Helm compressed them, and n, the
// bytes of JSON it decompressed. A release of more than limit bytes of
// JSON is refused (errReleaseTooLarge) after decompressing limit+1 bytes.
// It is the one decoder for both the manifest files and live Secrets.
// Helm's own decoder (decodeRelease in helm.sh/helm/v3/pkg/storage/driver)
// is unexported, reachable only through a driver over a Kubernetes client,
// and unbounded; this follows its format and reads only the manifest.
func releaseManifest(stored []byte, limit int64) (manifest string, n int64, err error) {
	raw, err := base64.StdEncoding.DecodeString(string(stored))
	if err != nil {
		return "", 0, err
	}
	if bytes.HasPrefix(raw, magicGzip) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return "", 0, err
		}
		raw, err = io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil {
			return "", int64(len(raw)), err
		}
	}
	n = int64(len(raw))
	if n > limit {
		return "", n, errReleaseTooLarge
	}
	var rel struct {
		Manifest string `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil {
		return "", n, err
	}
	return rel.Manifest, n, nil
}

// ReleaseChecks returns the check of the Helm releases of manifests
// (CheckManifestReleases, not required: a release only adds
// running versions to what the images show): none when the manifests
// hold no release Secret, partial when a release was not read or not
// read whole, naming it and why.
func (inv *Inventory) ReleaseChecks() []planner.Check {
	if inv.ReleaseSecrets == 0 {
		return nil
	}
	c := planner.Check{
		Name: CheckManifestReleases, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("running versions from Helm releases: %s, %s (the newest deployed revision of each)",
			cell.Count(inv.ReleaseSecrets, "release secret", "release secrets"), cell.Count(inv.Releases, "manifest read", "manifests read")),
	}
	if len(inv.SkippedReleases) > 0 {
		c.Status = planner.CheckPartial
		c.Detail += fmt.Sprintf("; %s not read: %s", cell.Count(len(inv.SkippedReleases), "release", "releases"), strings.Join(inv.SkippedReleases, "; "))
	}
	return []planner.Check{c}
}
