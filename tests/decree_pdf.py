"""A table-heavy presidential decree as a PDF (fpdf2), laid out as the official publications set one:
the operative text in 13.5 pt with first-line indents and no space between paragraphs, a long
preamble listing the amended acts and their publications, «постановляю:», numbered items and
lettered sub-items, the signature block, then an approved list as a ruled 12 pt table over
some twenty pages (most of the characters are table text, so the most common size is not the
body's). The wording is written here from templates; no real decree's text is copied.

`write_decree(path)` returns the paragraphs as written (the body, the table cells), so a test
can check every character came back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
from fpdf import FPDF

FONTS = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf"
BODY, TABLE, TITLE = 13.5, 12.0, 15.0
LEFT, RIGHT, TOP, BOTTOM = 85.0, 42.0, 57.0, 57.0
INDENT = 35.4


@dataclass
class Decree:
    body: list[str] = field(default_factory=list)  # every paragraph of text outside the table
    body_pages: list[int] = field(default_factory=list)  # the page each paragraph starts on
    cells: list[str] = field(default_factory=list)  # every table cell
    pages: int = 0


ACTS = [
    ("12 мая 2008 г.", "724", "Вопросы системы и структуры федеральных органов исполнительной власти"),
    ("21 января 2020 г.", "21", "О структуре федеральных органов исполнительной власти"),
    ("11 августа 2016 г.", "408", "О некоторых вопросах государственного учёта"),
    ("3 апреля 2017 г.", "141", "О порядке ведения реестров и перечней"),
    ("15 июля 2015 г.", "364", "О мерах по совершенствованию организации деятельности в области учёта"),
]
PUBLISHED = ["2008, № 20, ст. 2290", "2009, № 1, ст. 1", "2010, № 4, ст. 368", "2011, № 2, ст. 267",
             "2012, № 22, ст. 2759", "2013, № 12, ст. 1245", "2014, № 27, ст. 3754", "2015, № 29, ст. 4484",
             "2016, № 33, ст. 5147", "2017, № 15, ст. 2186", "2018, № 20, ст. 2804", "2019, № 44, ст. 6197"]
ORGANS = ["Министерство финансов Российской Федерации", "Федеральная налоговая служба",
          "Министерство экономического развития Российской Федерации", "Федеральное казначейство",
          "Министерство цифрового развития, связи и массовых коммуникаций Российской Федерации",
          "Федеральная служба государственной статистики", "Министерство юстиции Российской Федерации"]
SUBJECTS = ["сведения о государственной регистрации", "реестр получателей поддержки",
            "перечень информационных систем", "отчётность о выполнении мероприятий",
            "данные о составе имущества", "сведения о заключённых соглашениях"]


def preamble() -> str:
    """The amendment list: every act amended, with its publications, then «постановляю:»."""
    acts = []
    for date, number, name in ACTS:
        where = "; ".join(PUBLISHED)
        acts.append(f"Указ Президента Российской Федерации от {date} № {number} «{name}» "
                    f"(Собрание законодательства Российской Федерации, {where})")
    return ("В целях совершенствования государственного управления в сфере учёта и в соответствии со "
            "статьёй 80 Конституции Российской Федерации, а также в связи с изменениями, внесёнными в "
            + ", ".join(acts) + ", постановляю:")


def operative() -> list[str]:
    items = []
    for n in range(1, 27):
        organ, subject = ORGANS[n % len(ORGANS)], SUBJECTS[n % len(SUBJECTS)]
        if n % 3 == 1:
            items.append(f"{n}. Установить, что {organ.lower() if n > 100 else organ} обеспечивает ведение "
                         f"сведений, указанных в приложении к настоящему Указу, включая {subject}, и "
                         f"представляет их ежеквартально не позднее 20-го числа месяца, следующего за "
                         f"отчётным кварталом.")
        elif n % 3 == 2:
            items.append(f"{n}. Внести в Указ Президента Российской Федерации от {ACTS[n % 5][0]} № "
                         f"{ACTS[n % 5][1]} «{ACTS[n % 5][2]}» следующие изменения:")
            items.append(f"а) в пункте {n + 1} слова «{subject}» заменить словами «{SUBJECTS[(n + 1) % 6]}»;")
            items.append(f"б) подпункт «в» пункта {n + 2} признать утратившим силу;")
            items.append(f"в) дополнить пунктом {n + 3} следующего содержания: «{n + 3}. {organ} "
                         f"рассматривает обращения в срок до 30 дней со дня их регистрации.».")
        else:
            items.append(f"{n}. Правительству Российской Федерации в 3-месячный срок обеспечить "
                         f"приведение своих актов в соответствие с настоящим Указом, а {organ} — "
                         f"утвердить порядок представления сведений, включая {subject}.")
    items.append("27. Настоящий Указ вступает в силу со дня его подписания.")
    return items


def rows(count: int) -> list[list[str]]:
    out = []
    for n in range(1, count + 1):
        organ, subject = ORGANS[n % len(ORGANS)], SUBJECTS[n % len(SUBJECTS)]
        out.append([f"{n}.", f"{subject.capitalize()} по форме {n:03d}, представляемые в {organ}",
                    f"{organ}", f"ежеквартально, до {5 + n % 20}-го числа"])
    return out


class _Writer:
    def __init__(self) -> None:
        self.pdf = FPDF(unit="pt", format="A4")
        self.pdf.set_auto_page_break(False)
        self.pdf.add_font("serif", "", str(FONTS / "DejaVuSerif.ttf"))
        self.pdf.add_font("serif", "B", str(FONTS / "DejaVuSerif-Bold.ttf"))
        self.width = self.pdf.w - LEFT - RIGHT
        self.y = 0.0
        self.new_page()

    def new_page(self) -> None:
        self.pdf.add_page()
        self.y = TOP

    def wrap(self, text: str, width: float, first_indent: float = 0.0) -> list[str]:
        lines, current, room = [], "", width - first_indent
        for word in text.split():
            trial = f"{current} {word}" if current else word
            if current and self.pdf.get_string_width(trial) > room:
                lines.append(current)
                current, room = word, width
            else:
                current = trial
        return [*lines, current] if current else lines

    def paragraph(self, text: str, size: float = BODY, bold: bool = False, center: bool = False,
                  indent: float = INDENT) -> int:
        """Set the paragraph; returns the page its first line is on."""
        self.pdf.set_font("serif", "B" if bold else "", size)
        pitch = size * 1.15
        first = 0
        for i, line in enumerate(self.wrap(text, self.width, 0.0 if center else indent)):
            if self.y + pitch > self.pdf.h - BOTTOM:
                self.new_page()
            first = first or self.pdf.page
            x = LEFT + (self.width - self.pdf.get_string_width(line)) / 2 if center else LEFT + (indent if i == 0
                                                                                                   else 0.0)
            self.y += pitch
            self.pdf.text(x, self.y, line)
        return first

    def table(self, header: list[str], body: list[list[str]], widths: list[float]) -> None:
        self.pdf.set_font("serif", "", TABLE)
        pitch = TABLE * 1.15
        for row in [header, *body]:
            wrapped = [self.wrap(cell, w - 6) for cell, w in zip(row, widths, strict=True)]
            height = max(len(c) for c in wrapped) * pitch + 6
            if self.y + height > self.pdf.h - BOTTOM:
                self.new_page()
            x = LEFT
            for cell, w in zip(wrapped, widths, strict=True):
                self.pdf.rect(x, self.y, w, height)
                for k, line in enumerate(cell):
                    self.pdf.text(x + 3, self.y + 3 + (k + 1) * pitch - 3, line)
                x += w
            self.y += height


def write_decree(path: Path, table_rows: int = 170) -> Decree:
    w, decree = _Writer(), Decree()

    def para(text: str, **kw) -> None:
        decree.body_pages.append(w.paragraph(text, **kw))
        decree.body.append(text)

    para("УКАЗ", size=TITLE, bold=True, center=True)
    para("ПРЕЗИДЕНТА РОССИЙСКОЙ ФЕДЕРАЦИИ", size=TITLE, bold=True, center=True)
    w.y += 20
    para("О внесении изменений в некоторые акты Президента Российской Федерации и об утверждении перечня "
         "сведений, представляемых федеральными органами исполнительной власти", bold=True, center=True)
    w.y += 14
    para(preamble())
    for item in operative():
        para(item)
    w.y += 20
    para("Президент Российской Федерации В.Путин", indent=0.0)
    for line in ("Москва, Кремль", "15 января 2024 года", "№ 12"):
        para(line, indent=0.0)
    w.new_page()
    for line in ("УТВЕРЖДЁН", "Указом Президента Российской Федерации от 15 января 2024 г. № 12"):
        para(line, size=TABLE, indent=260.0)
    w.y += 14
    para("ПЕРЕЧЕНЬ сведений, представляемых федеральными органами исполнительной власти", bold=True,
         center=True)
    w.y += 10
    header = ["№ п/п", "Наименование сведений", "Орган, представляющий сведения", "Срок представления"]
    body = rows(table_rows)
    w.table(header, body, [40.0, 190.0, 150.0, w.width - 380.0])
    decree.cells = [cell for row in [header, *body] for cell in row]
    w.pdf.output(str(path))
    decree.pages = w.pdf.pages_count
    return decree
