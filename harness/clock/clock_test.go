package clock

import (
	"sync"
	"testing"
	"time"
)

func TestFakeStartsAtEpoch(t *testing.T) {
	f := NewFake()
	if got := f.Now(); !got.Equal(Epoch) {
		t.Errorf("NewFake().Now() = %v, want %v", got, Epoch)
	}
	if Epoch.UnixNano() != 0 {
		t.Errorf("Epoch.UnixNano() = %d, want 0", Epoch.UnixNano())
	}
}

func TestFakeAdvanceAndSet(t *testing.T) {
	f := NewFake()
	f.Advance(1500 * time.Millisecond)
	if got, want := f.Now(), Epoch.Add(1500*time.Millisecond); !got.Equal(want) {
		t.Errorf("after Advance(1.5s): Now() = %v, want %v", got, want)
	}
	back := Epoch.Add(-time.Hour)
	f.Set(back)
	if got := f.Now(); !got.Equal(back) {
		t.Errorf("after Set(%v): Now() = %v", back, got)
	}
}

func TestFakeAdvanceNegativePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Advance(-1ns) did not panic")
		}
	}()
	NewFake().Advance(-1)
}

func TestFakeConcurrentUse(t *testing.T) {
	f := NewFake()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				f.Advance(time.Millisecond)
				_ = f.Now()
			}
		}()
	}
	wg.Wait()
	if got, want := f.Now(), Epoch.Add(4*time.Second); !got.Equal(want) {
		t.Errorf("after 4000 concurrent Advance(1ms): Now() = %v, want %v", got, want)
	}
}

func TestSystemMovesForward(t *testing.T) {
	var c Clock = System{}
	a := c.Now()
	b := c.Now()
	if b.Before(a) {
		t.Errorf("System.Now() went backwards: %v then %v", a, b)
	}
}
