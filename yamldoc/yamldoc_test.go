package yamldoc_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"an empty stream has no document", "", nil},
		{"blank lines and comments alone are no document", "\n# only a comment\n---\n  \n---\n# another\n", nil},
		{"one document without a marker", "a: 1\nb: 2\n", []string{"a: 1\nb: 2\n"}},
		{"a leading marker starts the first document", "---\na: 1\n", []string{"\na: 1\n"}},
		{"markers split documents", "a: 1\n---\nb: 2\n---\nc: 3", []string{"a: 1\n", "\nb: 2\n", "\nc: 3"}},
		{"a marker may carry a comment", "a: 1\n--- # next\nb: 2\n", []string{"a: 1\n", " # next\nb: 2\n"}},
		{"content after a marker belongs to the next document", "a: 1\n--- !!map\nb: 2\n", []string{"a: 1\n", " !!map\nb: 2\n"}},
		{"a marker may end with carriage return or spaces", "a: 1\r\n---\r\nb: 2\r\n---  \nc: 3\n", []string{"a: 1\r\n", "\r\nb: 2\r\n", "  \nc: 3\n"}},
		{"dashes inside a line or a longer run are content", "a: ---\n----\nb: |\n  ---x\n ---\n", []string{"a: ---\n----\nb: |\n  ---x\n ---\n"}},
		{"a stream ending on a marker has no empty last document", "a: 1\n---\n", []string{"a: 1\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range yamldoc.Split([]byte(tt.in)) {
				got = append(got, string(d))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// stream is n small manifests separated by markers.
func stream(n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: y\ndata:\n  a: b\n---\n")
	}
	return b.Bytes()
}

func TestSplitAgreesWithAPIMachineryOnPlainStreams(t *testing.T) {
	data := stream(50)
	r := utilyaml.NewYAMLReader(bufioReader(data))
	var want []string
	for {
		d, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, strings.TrimPrefix(string(d), "\n"))
	}
	var got []string
	for _, d := range yamldoc.Split(data) {
		got = append(got, strings.TrimPrefix(string(d), "\n"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Split (-YAMLReader +Split):\n%s", diff)
	}
}

func BenchmarkSplit(b *testing.B) {
	data := stream(10000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		yamldoc.Split(data)
	}
}

func BenchmarkAPIMachineryYAMLReader(b *testing.B) {
	data := stream(10000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := utilyaml.NewYAMLReader(bufioReader(data))
		for {
			if _, err := r.Read(); err != nil {
				break
			}
		}
	}
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
