"""The LLM judge's prompt as a typed object: instruction, few-shot examples, reply schema and a
version string. The version is part of the cache key: change any wording, bump the version."""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals.score.judges.base import JudgeInput


class Verdict(BaseModel):
    """The reply the judge asks for (and validates)."""

    model_config = ConfigDict(extra="ignore")

    label: Literal["supported", "partial", "unsupported", "cannot_judge"]
    score: float = Field(ge=0.0, le=1.0, description="confidence that the evidence supports the claim")
    reason: str = Field(max_length=2000)


class Example(BaseModel):
    question: str | None = None
    claim: str
    evidence: list[str]
    verdict: Verdict


class SupportPrompt(BaseModel):
    version: str
    system: str
    instruction: str
    examples: list[Example]

    def user_message(self, item: JudgeInput) -> str:
        return self.instruction + "\n\n" + "\n\n".join(
            f"### Example {i}\n{_unit_json(e.question, e.claim, e.evidence)}\nAnswer: {e.verdict.model_dump_json()}"
            for i, e in enumerate(self.examples, start=1)
        ) + f"\n\n### Task\n{_unit_json(item.question, item.claim, list(item.evidence))}\nAnswer:"


def _unit_json(question: str | None, claim: str, evidence: list[str]) -> str:
    # JSON keeps untrusted text inside string literals, so it cannot pose as instructions' structure
    unit: dict[str, object] = {"claim": claim, "evidence": evidence}
    if question:
        unit = {"question": question, **unit}
    return json.dumps(unit, ensure_ascii=False, indent=1)


SUPPORT_PROMPT = SupportPrompt(
    version="support-v2",
    system=(
        "You check whether cited evidence supports a claim from an answer given by a retrieval-augmented "
        "assistant. The texts are usually Russian regulations and policies. Judge only from the evidence "
        "given, never from your own knowledge. Reply with one JSON object and nothing else."
    ),
    instruction=(
        "Decide whether the evidence supports the claim. When several evidence fragments are given, read "
        "them together: the claim is supported when they support it jointly.\n"
        '- "supported": everything the claim states follows from the evidence, including every number, '
        "date, deadline, amount and bound (\"не реже\", \"не более\", \"at least\"); numbers written in "
        "words count as the same numbers (\"двенадцати недель\" = \"12 недель\").\n"
        '- "partial": the core follows from the evidence but the claim drops a condition or an exception '
        "(\"за исключением\", \"кроме\", \"только при\"), overgeneralises (\"любой\", \"всегда\"), or "
        "adds a minor detail the evidence does not state.\n"
        '- "unsupported": the evidence does not state the claim, or contradicts it: a different number, '
        "a reversed bound, a negation flipped, a changed modality (an obligation \"обязан\" is not a "
        "permission \"вправе\", neither is a prohibition \"запрещается\"), a different actor (who must "
        "do it), or a cause (\"потому что\", \"поскольку\") the evidence does not give.\n"
        '- "cannot_judge": the evidence is empty, unreadable or about something else entirely.\n'
        'Reply as JSON: {"label": ..., "score": <0..1, your confidence that the evidence supports the claim>, '
        '"reason": <one short sentence, in the language of the claim>}.'
    ),
    examples=[
        Example(
            question="Как часто медсёстры проходят обучение по охране труда?",
            claim="Медсёстры проходят обучение по охране труда не реже одного раза в 6 месяцев.",
            evidence=["Медицинские сёстры проходят обучение по охране труда не реже одного раза в 12 месяцев."],
            verdict=Verdict(label="unsupported", score=0.02,
                            reason="В источнике срок 12 месяцев, а не 6."),
        ),
        Example(
            claim="Заявление рассматривается в течение десяти рабочих дней со дня регистрации.",
            evidence=["Заявление рассматривается в срок не более 10 рабочих дней с даты его регистрации."],
            verdict=Verdict(label="supported", score=0.95,
                            reason="Источник устанавливает тот же срок — 10 рабочих дней."),
        ),
        Example(
            claim="Работник обязан пройти медосмотр и сдать экзамен по технике безопасности.",
            evidence=["Работник проходит обязательный медицинский осмотр перед допуском к работе."],
            verdict=Verdict(label="partial", score=0.4,
                            reason="Медосмотр подтверждён, об экзамене в источнике не сказано."),
        ),
        Example(
            claim="Работодатель вправе обеспечить работников средствами индивидуальной защиты.",
            evidence=["Работодатель обязан обеспечить работников средствами индивидуальной защиты."],
            verdict=Verdict(label="unsupported", score=0.05,
                            reason="В источнике это обязанность работодателя, а не его право."),
        ),
        Example(
            claim="Донором может быть гражданин от 18 до 35 лет, обследованный не позднее чем за 30 дней.",
            evidence=["Донором может быть гражданин в возрасте от восемнадцати до тридцати пяти лет.",
                      "Обследование донора проводится не позднее чем за тридцать дней до донации."],
            verdict=Verdict(label="supported", score=0.9,
                            reason="Возраст подтверждает первый фрагмент, срок обследования — второй."),
        ),
        Example(
            claim="Smoking is allowed in designated areas of the clinic.",
            evidence=["Smoking is prohibited anywhere on the clinic premises."],
            verdict=Verdict(label="unsupported", score=0.01, reason="The evidence prohibits smoking everywhere."),
        ),
    ],
)

_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


def parse_verdict(text: str) -> Verdict:
    """The verdict in a reply: the JSON object in it (a model may wrap it in a code fence or a
    sentence). Raises ValueError when there is none or it does not fit the schema."""
    match = _JSON_OBJECT.search(text or "")
    if match is None:
        raise ValueError("no JSON object in the reply")
    try:
        return Verdict.model_validate_json(match.group(0))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise ValueError(f"reply does not fit the verdict schema ({where}: {first['msg']})") from None
