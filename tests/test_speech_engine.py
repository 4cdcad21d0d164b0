

def test_the_bench_measures_the_first_audio_sample(espeak):
    """``companion bench``'s speech figures come from real espeak-ng processes (their
    values are reported, never asserted: they are the machine's)."""
    from companion.bench.speech import speech_bench

    measured = speech_bench(3)
    assert measured["presses"] == 3 and measured["no_audio"] == 0
    assert measured["first_audio_median_ms"] > 0 and measured["press_to_frame_median_ms"] > 0
