"""Where espeak-ng puts each word: synthesizes one sentence through libespeak-ng (the library the espeak-ng
command line runs) and prints, as JSON, the sample at which each WORD event starts, the samples it produced,
and their SHA-1, so the caller can prove they are the very samples of the clip the command line wrote.

usage: python3 espeak-words.py <voice> <words per minute> <text>
"""

import ctypes
import hashlib
import json
import sys

AUDIO_OUTPUT_SYNCHRONOUS = 2
ESPEAK_RATE = 1
CHARS_UTF8 = 1
EVENT_LIST_TERMINATED = 0
EVENT_WORD = 1


class Event(ctypes.Structure):
    # espeak_EVENT of speak_lib.h; the trailing union is a pointer wide.
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", ctypes.c_void_p),
    ]


Callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event))


def main() -> None:
    voice, wpm, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    lib = ctypes.CDLL("libespeak-ng.so.1")
    sample_rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, 0)
    if sample_rate <= 0:
        sys.exit("libespeak-ng did not initialise")
    if lib.espeak_SetVoiceByName(voice.encode()) != 0:
        sys.exit(f"libespeak-ng has no voice {voice}")
    lib.espeak_SetParameter(ESPEAK_RATE, wpm, 0)
    pcm = bytearray()
    words = []
    # Positions count characters from 1; the text is sent as UTF-8.
    chars = text

    def on_audio(wav, count, events):
        if wav and count > 0:
            pcm.extend(ctypes.string_at(wav, count * 2))
        i = 0
        while events[i].type != EVENT_LIST_TERMINATED:
            e = events[i]
            if e.type == EVENT_WORD:
                start = e.text_position - 1
                words.append({"text": chars[start : start + e.length], "sample": e.sample})
            i += 1
        return 0

    callback = Callback(on_audio)
    lib.espeak_SetSynthCallback(callback)
    data = text.encode()
    lib.espeak_Synth(data, len(data) + 1, 0, 0, 0, CHARS_UTF8, None, None)
    lib.espeak_Synchronize()
    json.dump({"sampleRate": sample_rate, "samples": len(pcm) // 2, "sha1": hashlib.sha1(pcm).hexdigest(), "words": words}, sys.stdout)


main()
