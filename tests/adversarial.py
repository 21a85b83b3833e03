"""Hand-written hard inputs for parity tests."""

ADVERSARIAL = [
    # accents and combining marks
    "Café naïve résumé Ångström façade",
    "e\u0301 a\u0300\u0316 o\u0308\u0304 \u0301leading mark",
    "Ǆemal ǅ ǆ titlecase",
    # CJK, its extension blocks, compatibility ideographs, kana, hangul
    "中文字符测试 and 日本語のテキスト",
    "\U00020000\U0002a6d6 \U0002a700 \U0002b740 \U0002b820 \U0002ceb0 \U00030000",
    "\uf900\ufa6d \U0002f800 \u2e80 \u31c0",
    "한국어 텍스트 ㄱㄴ",
    # emoji and ZWJ sequences, flags, skin tones
    "👩‍👩‍👧 family 👍🏽 thumbs 🇫🇷 flag 😀😀",
    # control and zero-width characters
    "a\u200bb\u200cc\u200dd\ufeffe\u2060f",
    "a\x00b\ufffdc\x07d\x1be\x7ff\x85g",
    # exotic whitespace
    "a\u00a0b\u3000c\u2028d\u2029e\u2003f\u202fg\th\ni\rj\x0bk\x0cl",
    # Greek final sigma, Turkish dotted and dotless i
    "ΣΊΣΥΦΟΣ ΟΔΥΣΣΕΥΣ ς σ Σ",
    "İstanbul ıIiİ DİYARBAKIR",
    # ligatures and compatibility forms
    "ﬁne ﬂow ﬀ ﬃ Ⅻ ㎏ ½ ²",
    # word lengths around max_input_chars_per_word
    "x" * 99,
    "y" * 100,
    "z" * 101,
    "é" * 100,
    "é" * 101,
    # special tokens and prefixes inside text
    "[CLS] hi [UNK] ## ##a [SEP][MASK][PAD]",
    "text[CLS]glued[SEP]more [cls] [Cls]",
    "### ##ing ##",
    # empty and whitespace-only
    "",
    " ",
    "   \t\n  ",
    "\u3000\u00a0",
    # punctuation and symbols
    "don't won't I'm you're they've it's",
    "$100 + 5% = ^_^ `code` |pipe| ~tilde <tag>",
    "«quotes» „German“ ‘single’ — dash … ellipsis ¿qué? ¡sí!",
    # other scripts
    "Привет, мир! Ёлка",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "สวัสดีชาวโลก",
    "שלום עולם",
    # digits
    "٣٤٥ ١٢٣ 12,345.67 ①②③",
    # surrogate-free astral symbols and private use
    "\U0001d400\U0001d7ce \ue000\uf8ff \U000f0000",
    # Unicode noncharacters and unassigned code points
    "\ufdd0\uffff \U0001fffe \u0378\u0379",
]
