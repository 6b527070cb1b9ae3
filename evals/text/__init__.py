"""Text, Russian first and any language: normalization (typographic folding, ё/е, line-break
hyphenation), sentence splitting and markers, numbers (digits and Russian number words) and
word tokens with stop words and stems.
"""
