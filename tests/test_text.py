"""Normalization, sentence splitting and number extraction on hand-worked Russian examples."""

from evals.text.normalize import extract_numbers, locate, normalize, split_sentences


def test_normalize_folds_typography():
    assert normalize("«Ёлка»") == '"елка"'
    assert normalize("„цитата“") == '"цитата"'
    assert normalize("a\u00a0b\u2009c") == "a b c"
    assert normalize("2024 \u2014 2025 \u2013 2026") == "2024 - 2025 - 2026"
    assert normalize("обу\u00adчения") == "обучения"
    assert normalize("обу-\nчения") == "обучения"
    assert normalize("обу-  \n  чения") == "обучения"
    assert normalize("  Много   \n\t пробелов ") == "много пробелов"
    assert normalize("ﬁ") == "fi"  # NFKC


def test_normalize_keeps_a_real_hyphen():
    assert normalize("медико-\nсанитарной") == "медикосанитарной"  # a line-break hyphen is joined
    assert normalize("медико-санитарной") == "медико-санитарной"
    assert normalize("2 -\n 3") == "2 - 3"  # not between letters


def test_locate_maps_back_to_source():
    source = "Курс обу-\nчения \u2014 «Ёлки»."
    start, end = locate("обучения - \"елки\"", source)
    assert (start, end) == (5, 24)
    assert source[start:end] == "обу-\nчения \u2014 «Ёлки»"
    assert locate("нет такого", source) is None


def test_sentences_respect_russian_abbreviations():
    text = (
        "Согласно ст. 5 и п. 3.1 приказа № 1019, т. е. с 2025 г., обучение обязательно. [E1] "
        "Ответственный — А. С. Иванов [E2]. Готово!"
    )
    assert [s.text for s in split_sentences(text)] == [
        "Согласно ст. 5 и п. 3.1 приказа № 1019, т. е. с 2025 г., обучение обязательно. [E1]",
        "Ответственный — А. С. Иванов [E2].",
        "Готово!",
    ]


def test_sentences_spans_and_lists():
    text = "1.1. Первый пункт. Второе [E1, E2].\n\n- элемент списка\n- второй"
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == ["1.1. Первый пункт.", "Второе [E1, E2].", "- элемент списка", "- второй"]
    for s in sentences:
        assert text[s.start : s.end] == s.text


def _values(text):
    return [(m.kind, m.value) for m in extract_numbers(text)]


def test_numbers():
    assert _values("1 000,50 тенге") == [("number", "1000.5")]
    assert _values("48\u00a0750\u00a0000 тенге") == [("number", "48750000")]
    assert _values("12 месяцев") == [("number", "12")]
    assert _values("до 01.07.2025") == [("date", "2025-07-01")]
    assert _values("с 2025-07-01") == [("date", "2025-07-01")]
    assert _values("с 1 июля 2025 года") == [("date", "2025-07-01")]
    # a day of a month without a year is a day of every year (ISO 8601 "--MM-DD"), not the number 1
    assert _values("до 1 марта года, следующего за отчетным") == [("date", "--03-01")]
    assert _values("29 февраля") == [("date", "--02-29")]
    assert _values("15%") == [("percent", "15")]
    assert _values("0,1 % в день") == [("percent", "0.1")]
    assert _values("2,5 мг") == [("number", "2.5")]


def test_ranges_are_linked():
    mentions = extract_numbers("5–7 дней")
    assert [(m.value, m.range_with) for m in mentions] == [("5", 1), ("7", 0)]
    mentions = extract_numbers("с 16:00 до 19:00")
    assert [(m.kind, m.value, m.range_with) for m in mentions] == [("time", "16:00", None), ("time", "19:00", None)]


def test_fast_normalize_equals_the_mapped_one():
    from pathlib import Path

    from evals.text.normalize import normalize_with_map

    samples = [
        "«Ёлка» — обу-\nчения\u00a0и\u00adли „x“", "a-\n\n b", "Ǆ ﬁ ＡＢＣ ½ Ⅻ", "e\u0301 ё е\u0308", "x -\t\n y",
        "  \u2003 пробелы \u202f и\tтабы\n", "hy-\n1", "1-\nhy", "ΣΑΣ straße İstanbul",
    ]
    demo = Path(__file__).resolve().parent.parent / "datasets" / "demo" / "registry" / "texts"
    samples += [p.read_text(encoding="utf-8") for p in sorted(demo.glob("*.txt"))[:6]]
    for text in samples:
        assert normalize(text) == normalize_with_map(text)[0], text[:40]


def test_a_marker_at_the_very_end_stays_with_its_sentence():
    assert [s.text for s in split_sentences("Срок 12 месяцев. [E1]")] == ["Срок 12 месяцев. [E1]"]
    assert [s.text for s in split_sentences("Первое. [E1] Второе. [E2, E3]")] == ["Первое. [E1]", "Второе. [E2, E3]"]
