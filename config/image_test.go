package config_test

import (
	"os"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDefaultPinsTheControllerImage checks that config/default runs a
// release of the image, never whatever :latest is at the time.
func TestDefaultPinsTheControllerImage(t *testing.T) {
	data, err := os.ReadFile("default/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Images []struct {
			Name    string `json:"name"`
			NewName string `json:"newName"`
			NewTag  string `json:"newTag"`
			Digest  string `json:"digest"`
		} `json:"images"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	if len(k.Images) != 1 || k.Images[0].Name != "sylva-planner" {
		t.Fatalf("config/default images = %+v, want the sylva-planner image set once", k.Images)
	}
	img := k.Images[0]
	if img.Digest == "" && (img.NewTag == "" || img.NewTag == "latest") {
		t.Errorf("config/default runs %s:%s, want a release tag (or a digest)", img.NewName, img.NewTag)
	}
}
