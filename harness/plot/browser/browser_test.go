package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSizeRejectsBrokenSVG(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unclosed.svg": `<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg"><path d="M0 0"></svg>`,
		"html.svg":     `<html width="10" height="10"></html>`,
		"nosize.svg":   `<svg xmlns="http://www.w3.org/2000/svg"></svg>`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if w, h, err := Size(p); err == nil {
			t.Errorf("Size(%s) = %d, %d, nil; want an error", name, w, h)
		}
	}
	p := filepath.Join(dir, "ok.svg")
	os.WriteFile(p, []byte(`<?xml version="1.0"?><svg width="792pt" height="72pt" xmlns="http://www.w3.org/2000/svg"></svg>`), 0o644)
	if w, h, err := Size(p); err != nil || w != 1056 || h != 96 {
		t.Errorf("Size(ok.svg) = %d, %d, %v; want 1056, 96, nil", w, h, err)
	}
}

// TestCheckFindsABlankPicture needs Chromium, like make test-plots.
func TestCheckFindsABlankPicture(t *testing.T) {
	if _, err := Chromium(); err != nil {
		if os.Getenv("LADDER_PLOTS_BROWSER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	p := filepath.Join(t.TempDir(), "blank.svg")
	os.WriteFile(p, []byte(`<svg width="200px" height="100px" xmlns="http://www.w3.org/2000/svg"><rect width="200" height="100" fill="white"/></svg>`), 0o644)
	_, err := Check(context.Background(), p, 0.01)
	if err == nil || !strings.Contains(err.Error(), "looks blank") {
		t.Errorf("Check(blank.svg) = %v, want an error saying it looks blank", err)
	}
}
