"""faster-whisper with the settings the service uses: one place, shared by the server and the benchmark's bare engine.

Settings and why (measured on a 2-core machine with espeak-ng speech, issue 31; design note, implications 3):

- compute_type int8: the CPU path of CTranslate2; Whisper base int8 keeps its accuracy at a fraction
  of fp32's memory and time.
- beam_size 1 (greedy; TRANSCRIBER_BEAM_SIZE changes it): about 3.8x real time against 2.9x with
  beam 5, and the temperature fallback below still re-decodes a segment that fails the quality
  thresholds, which is where a beam helps most. openai-whisper's own transcribe() is greedy by default.
- not BatchedInferencePipeline: 6x real time, but it dropped about a tenth of the words in the
  measured run, has no temperature fallback and ignores the quality thresholds.
- word_timestamps when words are asked for: the library format is word-timed.
- vad_filter with min_silence_duration_ms 500: silences are skipped instead of decoded (less
  hallucination, faster), and pauses between sentences split segments; faster-whisper maps the
  times back to the original timeline.
- condition_on_previous_text False: no repetition loops carried from one window to the next.
- cpu_threads = the machine's cores (CTranslate2 defaults to 4 whatever the machine).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

from faster_whisper import WhisperModel

BEAM_SIZE = int(os.environ.get("TRANSCRIBER_BEAM_SIZE", "1"))
VAD_PARAMETERS = {"min_silence_duration_ms": 500}
TEMPERATURES = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def load_model(model: str, threads: int | None = None) -> WhisperModel:
    """Loads a model folder (or a hub id, for users with internet) once, int8 on the CPU."""
    return WhisperModel(model, device="cpu", compute_type="int8", cpu_threads=threads or os.cpu_count() or 1)


@dataclass
class Result:
    language: str
    duration: float
    segments: list[dict[str, Any]]
    words: list[dict[str, Any]]


class Abandoned(Exception):
    """The client went away: nobody waits for the rest of this transcription."""


def transcribe(
    model: WhisperModel,
    audio: str,
    *,
    language: str | None = None,
    prompt: str | None = None,
    temperature: float = 0.0,
    word_timestamps: bool = True,
    abandoned: Callable[[], bool] = lambda: False,
) -> Result:
    """Transcribes an audio file to OpenAI's verbose_json pieces: segments and top-level words (seconds).

    `abandoned` is asked after each segment; when it says yes, decoding stops with `Abandoned` (a worker killed
    mid-transcription would otherwise keep the engine busy for the whole episode while its retry waits).
    """
    # At 0 the temperature falls back upwards on a failed segment, as OpenAI's API does.
    temperatures = [t for t in TEMPERATURES if t >= temperature] or [temperature]
    segments, info = model.transcribe(
        audio,
        language=language,
        initial_prompt=prompt or None,
        beam_size=BEAM_SIZE,
        temperature=temperatures,
        word_timestamps=word_timestamps,
        vad_filter=True,
        vad_parameters=VAD_PARAMETERS,
        condition_on_previous_text=False,
    )
    out_segments: list[dict[str, Any]] = []
    out_words: list[dict[str, Any]] = []
    for s in segments:  # a generator: the decoding happens while iterating
        if abandoned():
            raise Abandoned()
        out_segments.append(
            {
                "id": s.id,
                "seek": s.seek,
                "start": round(s.start, 3),
                "end": round(s.end, 3),
                "text": s.text,
                "tokens": list(s.tokens),
                "temperature": s.temperature,
                "avg_logprob": s.avg_logprob,
                "compression_ratio": s.compression_ratio,
                "no_speech_prob": s.no_speech_prob,
            }
        )
        for w in s.words or []:
            out_words.append({"word": w.word, "start": round(w.start, 3), "end": round(w.end, 3)})
    return Result(language=info.language, duration=info.duration, segments=out_segments, words=out_words)
