"""Russian regulation rules of the offline judge: double negation in modality, and a fragment that
delegates the content to a regulator (pairs written here; labels fixed by construction)."""

from __future__ import annotations

import pytest

from evals.score.judges import lexicon as lx
from evals.score.judges.base import JudgeInput
from evals.score.judges.modifiers import modifier_conflict
from evals.score.judges.offline import OfflineJudge, extract_features, rules_verdict

CONSENT = "Медицинское вмешательство без согласия пациента не допускается, за исключением случаев угрозы жизни."
LEAVE = "Руководитель организации не вправе отказать работнику в предоставлении отпуска по беременности."
REFUSE = "Работник вправе отказаться от прохождения вакцинации."
LIST = "Перечень профессий, работники которых подлежат обязательной вакцинации, утверждается уполномоченным органом."
ORDER = "Порядок выдачи справок о временной нетрудоспособности определяется Правительством."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("не запрещается проводить осмотр", {"permit"}),
        ("руководитель не может не предоставить отпуск", {"oblige"}),
        ("руководитель не вправе отказать в отпуске", {"oblige"}),
        ("отказ в отпуске не допускается", {"prohibit"}),  # a prohibition of the refusal noun stays one
        ("осмотр запрещается", {"prohibit"}),
        # "не обязательна" states no duty: it leaves the choice free, as "не обязан" does
        ("прививка не обязательна", {"permit"}),
        ("предъявлять паспорт не обязательно", {"permit"}),
        ("необязательное участие в опросе", {"permit"}),
        ("предъявлять паспорт обязательно", {"oblige"}),
    ],
)
def test_double_negation_in_modality(text: str, expected: set[str]) -> None:
    assert lx.modalities(text) == expected


def assert_verdict(evidence: str, claim: str, supported: bool) -> None:
    """The rules call the claim supported by the one fragment, or not, as expected (their own
    verdict: the second look that may overturn a flag has its tests in test_second_look.py)."""
    features = extract_features(JudgeInput(claim, (evidence,)))
    assert features is not None and features.lang == "ru"
    result = rules_verdict(features)
    assert (result.value == "supported") == supported, result.reason


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        (CONSENT, "Без согласия пациента вмешательство запрещено, кроме случаев угрозы жизни.", True),
        (CONSENT, "Не запрещается проводить вмешательство без согласия пациента, кроме случаев угрозы жизни.", False),
        (LEAVE, "Руководитель обязан предоставить работнику отпуск по беременности.", True),
        (LEAVE, "Руководитель не может не предоставить работнику отпуск по беременности.", True),
        (LEAVE, "Руководитель может отказать работнику в отпуске по беременности.", False),
        (REFUSE, "Работник не обязан проходить вакцинацию.", True),
        (REFUSE, "Работник обязан пройти вакцинацию.", False),
        # "не обязательна" is no duty: a claim of one is not held
        ("Вакцинация против гриппа для работников аптек не обязательна.",
         "Вакцинация против гриппа для работников аптек обязательна.", False),
        ("Вакцинация против гриппа для работников аптек не обязательна.",
         "Работники аптек обязаны пройти вакцинацию против гриппа.", False),
        # the fragment delegates: the claim's concrete list or procedure is not in it
        (LIST, "Обязательной вакцинации подлежат работники школ, больниц и детских садов.", False),
        (ORDER, "Справку о временной нетрудоспособности выдают в поликлинике в день обращения.", False),
        # saying that the regulator sets it is what the fragment states
        (LIST, "Перечень профессий для обязательной вакцинации утверждает уполномоченный орган.", True),
        (ORDER, "Порядок выдачи справок о нетрудоспособности устанавливает Правительство.", True),
    ],
)
def test_verdicts(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


STERILE = "Инструменты не допускаются к повторному применению без стерилизации в автоклаве."
CERT = "Справка выдаётся в течение двух рабочих дней, если заявитель предъявил полис страхования."
# conditions named by who decides ("по решению …") and by a qualified consent ("с письменного согласия …")
BOARD = "Санаторное лечение предоставляется ветеранам по решению врачебной комиссии поликлиники."
CONSENT = "С письменного согласия опекуна или попечителя допускается перевод подопечного в другой интернат."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "не … без X" says "только после X"
        (STERILE, "Повторно применять инструменты можно только после стерилизации в автоклаве.", True),
        (STERILE, "Инструменты допускаются к повторному применению без стерилизации в автоклаве.", False),
        # a condition whose own words the claim drops ("заявитель" is not named before it, "предъявил" neither)
        (CERT, "Справка выдаётся в течение двух рабочих дней.", False),
        (CERT, "Если заявитель предъявил полис страхования, справку выдают за два рабочих дня.", True),
        (BOARD, "Ветеранам предоставляется санаторное лечение.", False),
        (BOARD, "Ветеранам санаторное лечение предоставляют по решению врачебной комиссии поликлиники.", True),
        (CONSENT, "Подопечного допускается переводить в другой интернат.", False),
        (CONSENT, "Перевод подопечного в другой интернат допускается с письменного согласия опекуна или попечителя.", True),
        # "по показаниям" is a condition in its own words; after "а также" it adds a second case
        ("Должностные лица санитарного надзора вправе по показаниям направлять на госпитализацию источников инфекций.",
         "Должностные лица санитарного надзора вправе направлять на госпитализацию источников инфекций.", False),
        ("Должностные лица санитарного надзора вправе по показаниям направлять на госпитализацию источников инфекций.",
         "При наличии показаний должностные лица санитарного надзора вправе направлять источников инфекций на "
         "госпитализацию.", True),
        ("Организации обязаны проводить профилактическую, а также по эпидемиологическим показаниям дезинфекцию.",
         "Организации обязаны проводить профилактическую дезинфекцию.", True),
    ],
)
def test_only_with_and_conditions(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


SICK = "Пособие сохраняется за работником на весь период болезни."
SHARED_COST = "Расходы на обучение несёт работник либо работодатель по соглашению сторон."
MINORS = "Согласие на вакцинацию несовершеннолетних дают их родители."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "весь период" quantifies one whole: it licenses "всегда", not "любой"
        (SICK, "Пособие всегда сохраняется за работником на весь период болезни.", True),
        (SICK, "За любым работником пособие сохраняется на весь период болезни.", False),
        (SHARED_COST, "Расходы на обучение во всех случаях несёт работодатель.", False),
        # the age of majority: "несовершеннолетних" states "младше 18 лет", not another age
        (MINORS, "За детей младше 18 лет согласие на вакцинацию дают родители.", True),
        (MINORS, "За детей младше 16 лет согласие на вакцинацию дают родители.", False),
    ],
)
def test_quantifiers_and_the_age_of_majority(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_a_condition_naming_only_what_came_before_is_still_read_by_its_own_words() -> None:
    evidence = "Пациент получает выписку из карты, если пациент представил паспорт."
    assert lx.dropped_condition("пациент получает выписку из карты", lx.prepare(evidence)) is not None
    assert lx.dropped_condition("пациент, представивший паспорт, получает выписку", lx.prepare(evidence)) is None


def test_a_delegation_restated_in_other_verbs_is_no_content_of_the_claims() -> None:
    # the claim's unheld words are verbs and a pointer: it restates who appoints, it adds no content
    evidence = ("Должностными лицами контроля являются главные инспекторы на территориях, определяемые "
                "руководителем государственного органа.")
    assert_verdict(evidence, "Контроль ведут главные инспекторы на территориях, которых назначает руководитель "
                             "профильного государственного органа.", True)


def test_delegation_reason_names_the_regulator() -> None:
    result = OfflineJudge().judge_one(JudgeInput("Обязательной вакцинации подлежат работники школ и больниц.", (LIST,)))
    assert result.value == "unsupported" and "уполномоченный орган" in result.reason


REFER = "Врач направляет пациента на консультацию к профильному специалисту."
EXAM = "Осмотр пациента проводится медицинской сестрой перед процедурой."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        (REFER, "Пациент направляет врача на консультацию к профильному специалисту.", False),  # roles swapped
        (REFER, "Пациента направляет на консультацию к профильному специалисту врач.", True),  # word order only
        (REFER, "Пациент получает от врача направление на консультацию к профильному специалисту.", True),  # converse
        (EXAM, "Медицинская сестра осматривает пациента перед процедурой.", True),  # passive agent = subject
        (EXAM, "Пациент осматривает медицинскую сестру перед процедурой.", False),
        (EXAM, "Пациент проходит осмотр у медицинской сестры перед процедурой.", True),
    ],
)
def test_who_does_what(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


SCHOOL = "Организация школьной медицины осуществляется местными органами государственного управления здравоохранением."


def test_bodies_of_the_health_code_and_what_they_manage() -> None:
    # the regions' health administrations, named with what they manage; the customs, professional
    # associations: each its own actor (worked by hand from the Code's wording)
    assert lx.actor_conflict(lx.prepare("Организацию школьной медицины осуществляют местные органы управления "
                                        "образованием."), lx.prepare(SCHOOL)) == (
        "claim names местный орган управления в сфере образован, the fragment местный орган управления в сфере "
        "здравоохранен")
    # the same body in other words, and the local executive whose bodies they are: no conflict
    assert lx.actor_conflict(lx.prepare("Школьную медицину организуют местные органы управления здравоохранением."),
                             lx.prepare(SCHOOL)) is None
    assert lx.actor_conflict(lx.prepare("Школьную медицину организуют местные исполнительные органы."),
                             lx.prepare(SCHOOL)) is None
    assert lx.actor_conflict(
        lx.prepare("Санитарно-карантинный контроль проводят таможенные органы."),
        lx.prepare("Санитарно-карантинный контроль проводится государственным органом в сфере санитарно-"
                   "эпидемиологического благополучия населения.")) is not None
    assert lx.actors(lx.prepare("Руководства разрабатываются профессиональными медицинскими ассоциациями.")) == {
        "профессиональная ассоциация"}


def test_actor_roles_read_case() -> None:
    # nominative subject and instrumental agent are doers; the accusative object is acted on
    assert lx.actor_roles("врач направляет пациента") == (frozenset({"врач"}), frozenset({"пациент"}))
    assert lx.actor_roles("осмотр пациента проводится медицинской сестрой") == (
        frozenset({"медицинская сестра"}), frozenset({"пациент"}))
    assert lx.actor_roles("пациент получает направление от врача") == (frozenset({"пациент"}), frozenset())


PHARMACY = ("Аптека обязана хранить рецепты в течение трёх лет, за исключением рецептов на наркотические средства, "
            "а также вести журнал учёта отпуска лекарств.")


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # the age of majority stands in only where the fragment states no age of its own
        ("Согласие на вакцинацию несовершеннолетних, не достигших пятнадцати лет, дают их родители.",
         "За детей младше 18 лет согласие на вакцинацию дают родители.", False),
        # an exception negates what it names: "но не от X" keeps "за исключением X"
        ("Граждане вправе отказаться от прививок, за исключением прививок против особо опасных инфекций.",
         "Да, граждане вправе отказаться от прививок, но не от прививок против особо опасных инфекций.", True),
        # an exception binds the part of the rule it stands in ("…, а также …" begins another)
        (PHARMACY, "Аптека обязана вести журнал учёта отпуска лекарств.", True),
        (PHARMACY, "Аптека обязана хранить рецепты в течение трёх лет.", False),
        # "не может" inside an "если"-clause states the case, not a prohibition
        ("Оказание медицинской помощи без согласия допускается в отношении лиц, находящихся в бессознательном "
         "состоянии, не позволяющем выразить волю.",
         "Если человек без сознания и выразить волю не может, медицинскую помощь ему оказывают без согласия.", True),
        # barring who has not done X admits only who has
        ("Водители, не прошедшие предрейсовый осмотр, к управлению транспортом не допускаются.",
         "Водителя допускают к управлению транспортом только при условии, что он прошёл предрейсовый осмотр.", True),
        # an actor named only as owned ("тайну пациента") beside the fragment's own actor is no other doer …
        ("Медицинские и фармацевтические работники обязаны хранить врачебную тайну.",
         "Хранить врачебную тайну пациента обязан медицинский работник.", True),
        # … but one named in the fragment's actor's place still is
        ("Вакцинация детей проводится с письменного согласия одного из родителей.",
         "Вакцинация детей проводится с письменного согласия лечащего врача.", False),
    ],
)
def test_scope_of_exceptions_conditions_and_actors(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_a_claim_about_another_part_of_the_rule() -> None:
    evidence = lx.prepare(PHARMACY)
    at = evidence.index("за исключением")
    assert lx.about_another_part(lx.prepare("аптека ведёт журнал учёта отпуска лекарств"), evidence, at)
    assert not lx.about_another_part(lx.prepare("аптека хранит рецепты три года"), evidence, at)
    # a claim over both parts is about each that holds half of it
    assert not lx.about_another_part(lx.prepare("аптека хранит рецепты и ведёт журнал учёта"), evidence, at)


CONSENT_TOLD = "Врач вправе сообщить супругу пациента сведения о диагнозе с согласия пациента."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # an inclusion marker adds an instance the fragment does not name …
        ("Работники общепита проходят предварительный медицинский осмотр при поступлении на работу.",
         "Работники общепита при поступлении на работу проходят предварительный медосмотр, включая флюорографию.",
         False),
        # … unless the fragment lists its own instances, which the claim may reword
        ("Пациент получает лечение, в том числе медикаментозное, за счёт бюджетных средств.",
         "Пациент получает лечение, в том числе лекарственное, за счёт бюджетных средств.", True),
        # a manner phrase (a gerund and its nouns, a pointer «своём» inside) is an added detail
        ("Аптека обязана обеспечить покупателю доступ к информации о ценах на лекарственные средства.",
         "Аптека должна, размещая сведения на своём сайте, обеспечить покупателю доступ к информации о ценах на "
         "лекарственные средства.", False),
        # a claim that keeps the consent keeps the condition
        (CONSENT_TOLD, "С согласия пациента врач может сообщить его супругу сведения о диагнозе.", True),
        # a verbatim quote of one sentence drops no condition of the next, whose words it names
        ("Обучение персонала обеспечивает врач-эпидемиолог больницы. В филиалах обучение обеспечивают помощники "
         "врача-эпидемиолога по согласованию с врачом-эпидемиологом больницы.",
         "Обучение персонала обеспечивает врач-эпидемиолог больницы.", True),
    ],
)
def test_added_instances_manner_phrases_and_kept_conditions(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_healthcare_abbreviations_are_read_in_full() -> None:
    text = lx.prepare("ВКК, медкарту, профзаболевания, санэпидслужба, зарплату, медзаключение")
    assert lx.expand_abbreviations(text) == ("врачебно-консультационная комиссия, медицинская карту, профессиональное "
                                            "заболевания, санитарно-эпидемиологическ служба, заработная плату, "
                                            "медицинское заключение")
    assert lx.expand_abbreviations(lx.prepare("по согласованию с МВД, госконтроль за счёт госбюджета")) == (
        "по согласованию с министерство внутренних дел, государственный контроль за счет государственный бюджета")
    assert lx.expand_abbreviations(lx.prepare("утверждает госпрограммы, госрегистрацию, госреестр")) == (
        "утверждает государственная программы, государственная регистрацию, государственный реестр")
    assert lx.expand_abbreviations(lx.prepare("патанатомическая диагностика, медданные")) == (
        "патологоанатомическая диагностика, медицинские данные")
    assert lx.expand_abbreviations(lx.prepare("медсправка, дезсредства, держатель регудостоверения, госсанврач")) == (
        "медицинская справка, дезинфицирующие средства, держатель регистрационное удостоверения, "
        "государственный санитарный врач")
    # a claim in the abbreviations is held by the fragment's full words
    assert_verdict("Медицинская справка о допуске к управлению транспортным средством действительна в течение "
                   "двенадцати месяцев со дня её выдачи.",
                   "Медсправка о допуске к управлению транспортом действует двенадцать месяцев, считая со дня, "
                   "когда её выдали.", True)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a law's plain statement binds: a claim that makes it a recommendation changes the modality
        ("Разработка медицинских изделий осуществляется с соблюдением требований международных стандартов.",
         "Разработчикам медицинских изделий рекомендуется соблюдать требования международных стандартов.", False),
        ("Медицинская организация обязана соблюдать требования международных стандартов.",
         "Медицинской организации соблюдать требования международных стандартов желательно, но не обязательно.",
         False),
        # … not where the fragment recommends, or permits, itself
        ("Медицинским организациям рекомендуется соблюдать требования международных стандартов.",
         "Медорганизациям рекомендуют соблюдать требования международных стандартов.", True),
        ("Медицинская организация вправе соблюдать требования международных стандартов.",
         "Медорганизациям рекомендуется соблюдать требования международных стандартов.", True),
    ],
)
def test_a_recommendation_is_no_rule(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_the_codes_authorized_body_is_the_one_in_health_care() -> None:
    # the Code's bare "уполномоченный орган" is the health-care one: naming that field restates it,
    # naming another field names another body
    evidence = "Статус научного центра присваивается организации здравоохранения уполномоченным органом."
    assert_verdict(evidence, "Статус научного центра присваивает организации здравоохранения уполномоченный орган в "
                             "области здравоохранения.", True)
    assert_verdict(evidence, "Статус научного центра присваивает организации здравоохранения уполномоченный орган в "
                             "области науки.", False)
    assert lx.actor_conflict(lx.prepare("уполномоченный орган в области науки присваивает статус"),
                             lx.prepare("статус присваивается уполномоченным органом")) is not None


def test_the_republic_is_no_added_detail() -> None:
    # "(МЗ РК)", "гражданам РК": where the law holds, not a fact of the claim's own
    evidence = "Уполномоченный орган разрабатывает и утверждает состав аптечки для оказания первой помощи."
    assert_verdict(evidence, "Состав аптечки первой помощи разрабатывает и утверждает уполномоченный орган (МЗ РК).",
                   True)
    assert_verdict(evidence, "Состав аптечки первой помощи разрабатывает и утверждает уполномоченный орган "
                             "по электронной почте.", False)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "если … не установил иной срок" keeps "если иное не установлено"
        ("Справка действительна в течение десяти дней, если иное не установлено уполномоченным органом.",
         "Справка действительна десять дней, если уполномоченный орган не установил другой срок.", True),
        # "не должно превышать N" bounds a number, it prohibits nothing
        ("Время ожидания консультации специалиста не должно превышать пяти рабочих дней.",
         "Консультацию специалиста пациент должен получить не позднее чем через пять рабочих дней.", True),
        # "нельзя …, пока не X" says "после X"
        ("Работники детских лагерей допускаются к работе после прохождения медицинского осмотра.",
         "Нет, работника детского лагеря нельзя допускать к работе, пока он не прошёл медосмотр.", True),
        # "независимо от формы собственности" licenses "любой формы собственности"
        ("Медицинские организации независимо от формы собственности обязаны вести учёт прививок.",
         "Медорганизация любой формы собственности обязана вести учёт прививок.", True),
        # a claim with a condition of its own still drops one none of whose words it holds
        ("Лечебное питание предоставляется пациенту стационара по решению лечащего врача.",
         "Если пациент лежит в стационаре, ему предоставляется лечебное питание.", False),
    ],
)
def test_bounds_restatements_and_conditions_beside_the_claims_own(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_a_modality_the_fragments_state_elsewhere_is_held() -> None:
    claim = lx.prepare("отказать в прививке нельзя")
    part = lx.prepare("поликлиника обязана проводить прививки")
    whole = part + " " + lx.prepare("отказ в проведении прививок не допускается")
    assert lx.modality_conflict(claim, part) is not None
    assert lx.modality_conflict(claim, part, whole) is None


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # who decides: "решение … принимается X" against "решает Y"
        ("Решение о направлении пациента на реабилитацию за счёт бюджетных средств принимается уполномоченным "
         "органом на основании заключения областной медицинской организации.",
         "Направить пациента на реабилитацию за бюджетный счёт решает медицинская организация.", False),
        ("Решение о направлении пациента на реабилитацию за счёт бюджетных средств принимается уполномоченным органом.",
         "Решение о направлении пациента на реабилитацию за счёт бюджета принимает уполномоченный орган.", True),
        # a head of an organisation is an actor of its own
        ("Экстренное извещение об инфекционном заболевании направляется медицинским работником, выявившим "
         "заболевание, в течение двенадцати часов.",
         "Экстренное извещение об инфекционном заболевании в течение двенадцати часов направляет руководитель "
         "организации.", False),
        # an exception kept by holding its words
        ("Подростки с шестнадцати лет дают согласие на лечение самостоятельно, за исключением случаев хирургического "
         "вмешательства, для которых требуется согласие законного представителя.",
         "Да, с 16 лет подросток сам соглашается на лечение; для хирургического вмешательства нужно согласие "
         "законного представителя.", True),
        # "обязательное условие" of something permitted is no duty
        ("Забор крови у донора допускается при соблюдении следующих условий: донор дал письменное согласие.",
         "Одно из обязательных условий забора крови у донора — его письменное согласие.", True),
    ],
)
def test_deciders_heads_kept_exceptions_and_required_conditions(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


VOUCHERS = "Бесплатные путёвки в санаторий предоставляются ветеранам, проживающим в сельской местности."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a participle phrase restricts the class the claim names: dropping it is partial
        (VOUCHERS, "Бесплатные путёвки в санаторий предоставляются ветеранам.", False),
        (VOUCHERS, "Ветеранам, живущим в сельской местности, предоставляются бесплатные путёвки в санаторий.", True),
        # a participle that names a term restricts nothing ("сведения, составляющие врачебную тайну")
        ("Сведения, составляющие врачебную тайну, передаются следователю по его письменному запросу.",
         "По письменному запросу следователя ему передают сведения о пациенте.", True),
    ],
)
def test_a_dropped_restricting_qualifier_is_partial(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


# Another kind of the same thing (modifiers.py): a claim adjective the fragment lacks, on a head
# noun the fragment qualifies with an adjective of its own.
PERIODIC = "Периодические медицинские осмотры водителей проводятся за счёт средств работодателя."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        (PERIODIC, "Предварительный медосмотр водителей проводится за счёт средств работодателя.", False),
        (PERIODIC, "Периодические медосмотры водителей проводятся за счёт средств работодателя.", True),
        # a kind the fragment does not qualify at all is not another kind ("медицинские осмотры")
        ("Медицинские осмотры водителей проводятся за счёт средств работодателя.",
         "Медосмотры водителей проводятся за счёт средств работодателя.", True),
    ],
)
def test_another_kind_of_the_same_thing(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_participles_are_paraphrase_not_kinds() -> None:
    evidence = lx.prepare("Перечень утверждается в порядке, определённом уполномоченным органом.")
    claim = lx.prepare("Перечень утверждается в порядке, установленном уполномоченным органом.")
    assert modifier_conflict(claim, evidence, ("установленном",)) is None
    reason = modifier_conflict(lx.prepare("предварительный осмотр проводится"), lx.prepare(PERIODIC), ("предварительный",))
    assert reason == "claim speaks of предварительный осмотр, the fragment of периодические осмотры"


def test_a_synonym_adjective_is_the_same_kind() -> None:
    # "нужную" for "необходимую", "самостоятельная" for "независимой": one kind said in other words,
    # no pair of kinds that exclude one another
    evidence = lx.prepare("Инспектор вправе запрашивать необходимую информацию о деятельности клиники.")
    claim = lx.prepare("Инспектор вправе запрашивать нужную информацию о деятельности клиники.")
    assert modifier_conflict(claim, evidence, ("нужную",)) is None
    evidence = lx.prepare("Обеспечивается возрастающая степень независимой ответственности резидента.")
    claim = lx.prepare("Самостоятельная ответственность резидента возрастает.")
    assert modifier_conflict(claim, evidence, ("самостоятельная",)) is None
    # "профильное" points to the body's own field, it names no other kind
    evidence = lx.prepare("Заключение выдается структурным подразделением государственного органа.")
    claim = lx.prepare("Заключение выдает профильное подразделение государственного органа.")
    assert modifier_conflict(claim, evidence, ("профильное",)) is None
    # another kind still conflicts: a written request is not an oral one
    claim = lx.prepare("Инспектор вправе направить устный запрос о деятельности клиники.")
    assert modifier_conflict(claim, lx.prepare("Инспектор вправе направить письменный запрос."),
                             ("устный",)) == "claim speaks of устный запрос, the fragment of письменный запрос"


def test_an_adjective_that_does_not_agree_with_the_noun_is_no_kind() -> None:
    # "прошедший обследование": a participle's phrase, the noun its object, not its kind
    evidence = lx.prepare("Медицинское обследование донора проводится за тридцать дней до сдачи крови.")
    assert modifier_conflict(lx.prepare("донор, прошедший обследование"), evidence, ("прошедший",)) is None


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a claim that opens with a circumstance ("В прививочном кабинете …") adds it, it does not
        # restate its subject
        ("Профилактические прививки по национальному календарю проводятся бесплатно.",
         "В прививочном кабинете поликлиники профилактические прививки по национальному календарю проводятся "
         "бесплатно.", False),
        # a Latin name is a detail word ("через портал egov")
        ("Гражданин вправе выразить согласие на посмертное донорство органов.",
         "Гражданин вправе выразить согласие на посмертное донорство органов через портал egov.", False),
        # "нацкалендарь", "ГОБМП" read in full; "вашей" points, it adds nothing
        ("Прививки по национальному календарю проводятся бесплатно в рамках гарантированного объема бесплатной "
         "медицинской помощи.", "Прививки по нацкалендарю в вашей поликлинике проводятся бесплатно в рамках ГОБМП.",
         True),
        # a pointer inside an added place phrase does not break it
        ("Профилактические прививки по национальному календарю проводятся бесплатно в поликлинике.",
         "Прививки по нацкалендарю делают бесплатно в прививочном кабинете вашей поликлиники.", False),
    ],
)
def test_added_circumstances_names_and_pointers(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


SICK_NOTE = "Лечащий врач выдаёт лист нетрудоспособности единолично на срок не более десяти календарных дней."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # the fragment bounds a number the claim leaves out altogether
        (SICK_NOTE, "Лечащий врач выдаёт лист нетрудоспособности единолично.", False),
        (SICK_NOTE, "Лечащий врач единолично выдаёт лист нетрудоспособности не более чем на десять календарных "
                    "дней.", True),
        # one of a unit is an age or a term ("до одного года"), not a count
        ("Дети в возрасте до одного года обеспечиваются лекарствами на амбулаторном уровне бесплатно.",
         "Детей бесплатно обеспечивают лекарствами на амбулаторном уровне.", False),
        # "раза в год" says "одного" without the word
        ("Пациент вправе сменить поликлинику не чаще одного раза в год.",
         "Сменить поликлинику пациент вправе не чаще раза в год.", True),
        # a claim with no verb (a quoted heading) states no rule to bound
        ("Температура в холодильнике, °C: от +2 до +8.", "Температура в холодильнике, °C.", True),
        ("Температура в холодильнике, °C: от +2 до +8.", "Температура в холодильнике поддерживается.", False),
    ],
)
def test_a_dropped_bound_is_partial(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # an ordinal that picks a class ("первой и второй групп") is a bound of the group
        ("Лицам с инвалидностью первой и второй групп путёвки предоставляются бесплатно.",
         "Людям с инвалидностью путёвки предоставляются бесплатно.", False),
        ("Лицам с инвалидностью первой и второй групп путёвки предоставляются бесплатно.",
         "Людям с инвалидностью первой или второй группы путёвки дают бесплатно.", True),
        # a frequency or a time limit where the fragment states no time at all
        ("Контроль за объектами общественного питания осуществляется в форме проверки.",
         "Контроль за объектами общественного питания ведётся ежегодно в форме проверки.", False),
        ("Лицо, у которого выявлена инфекция, обязано предупредить своих контактных лиц.",
         "Человек с выявленной инфекцией обязан в течение месяца предупредить своих контактных лиц.", False),
        ("Мониторинг результатов аудита проводится по представленным аудиторским заключениям.",
         "Мониторинг результатов аудита по представленным аудиторским заключениям проводится раз в квартал.", False),
        # "размещению" begins with "раз" and states no time
        ("Единый реестр свидетельств подлежит размещению на интернет-ресурсе государственного органа.",
         "Единый реестр свидетельств размещается на интернет-ресурсе государственного органа и обновляется не реже "
         "раза в месяц.", False),
        # … but not where the fragment states one of its own
        ("Контроль за объектами общественного питания осуществляется не реже одного раза в год.",
         "Контроль за объектами общественного питания ведётся ежегодно.", True),
        ("Мониторинг результатов аудита проводится один раз в полугодие.",
         "Мониторинг результатов аудита проводится раз в квартал.", False),
        ("Медицинские сёстры проходят обучение по охране труда не реже одного раза в 12 месяцев.",
         "Медсёстры проходят обучение по охране труда ежегодно.", True),  # a period in other words
        # a period named by an adjective ("ежеквартальный отчёт") is the fragment's period
        ("Управления представляют ежеквартальный отчёт о выполнении программ развития.",
         "Управления раз в квартал представляют отчёт о выполнении программ развития.", True),
        ("Управления представляют ежеквартальный отчёт о выполнении программ развития.",
         "Управления ежегодно представляют отчёт о выполнении программ развития.", False),
    ],
)
def test_dropped_classes_and_added_times(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "3/4" in digits is "три четверти" in words
        ("Заполнение ёмкости допускается не более чем на три четверти её объёма.",
         "Ёмкость можно заполнять не более чем на 3/4 объёма.", True),
        ("Заполнение ёмкости допускается не более чем на три четверти её объёма.",
         "Ёмкость можно заполнять не более чем на 2/3 объёма.", False),
        # a list's item with a bound is another part than the item the claim restates
        ("Стоматологическая помощь в рамках ГОБМП оказывается: 1) детям до восемнадцати лет; 2) беременным женщинам.",
         "Беременным женщинам стоматологическую помощь оказывают в рамках ГОБМП.", True),
        # a duty stated without its least frequency ("не реже …") still holds
        ("Медицинские сёстры проходят обучение по охране труда не реже одного раза в 12 месяцев.",
         "Медицинские сёстры проходят обучение по охране труда.", True),
    ],
)
def test_fractions_list_items_and_least_frequencies(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_primary_is_the_first() -> None:
    # "первичный патронаж" states "первый патронаж", not a second one
    evidence = "Первичный патронаж новорождённого осуществляется медицинской сестрой в течение трёх суток после выписки."
    assert_verdict(evidence, "Первый патронаж новорождённого медсестра проводит в течение трёх суток после выписки.",
                   True)
    assert_verdict(evidence, "Второй патронаж новорождённого медсестра проводит в течение трёх суток после выписки.",
                   False)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a circumstance "при …" restricts the rule like a condition
        ("Фельдшер вправе не допустить работника к смене при выявлении у него признаков опьянения.",
         "Да, фельдшер вправе не допустить работника к смене.", False),
        ("Фельдшер вправе не допустить работника к смене при выявлении у него признаков опьянения.",
         "Да, фельдшер может не допустить к смене работника с признаками опьянения.", True),
        # a verbatim quote of one sentence keeps nothing a neighbouring sentence's "при" adds
        ("Раствор «Альфа» применяется концентрацией 2 % при экспозиции 30 минут. "
         "При вирусных инфекциях раствор «Альфа» применяется концентрацией 3 % при экспозиции 60 минут.",
         "Раствор «Альфа» применяется концентрацией 2 % при экспозиции 30 минут.", True),
        # "как при …, так и …" includes; a claim's own "при …" may restate the fragment's in other words
        ("Пожертвование органов возможно как при жизни, так и после смерти донора.",
         "Пожертвование органов — это дар донора.", True),
        ("При экстракорпоральном оплодотворении выбор пола ребёнка не допускается.",
         "При ЭКО выбирать пол ребёнка нельзя.", True),
        # its first four words name it: "при оказании им помощи" is held by "которому оказывают помощь"
        ("Пациенты при оказании им паллиативной помощи имеют право на посещения родственников.",
         "Пациенты, которым оказывают паллиативную помощь, имеют право на посещения родственников.", True),
        # "при соблюдении следующих условий:" leads in to the conditions, it is none itself
        ("Выдача справки допускается при соблюдении следующих условий: пациент предъявил удостоверение.",
         "Одно из условий выдачи справки — пациент предъявил удостоверение.", True),
    ],
)
def test_a_dropped_circumstance_is_partial(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # the paragraph's own number "4." is no bound on the claim's "четыре рабочих дня"
        ("4. Заключение направляется заявителю не позднее четырёх рабочих дней со дня проверки.",
         "Заключение направляют заявителю не ранее чем через четыре рабочих дня после проверки.", False),
        ("4. Заключение направляется заявителю не позднее четырёх рабочих дней со дня проверки.",
         "Заключение направляют заявителю не позже чем через 4 рабочих дня после проверки.", True),
        # "не превышающий" is an upper bound in every form
        ("Жалоба рассматривается в срок, не превышающий десяти календарных дней.",
         "Жалобу рассматривают не ранее чем через десять календарных дней.", False),
        # a unit word alone is one of itself: "через год" is one year, "суток" one day
        ("Осмотр проводится не ранее одного года со дня приёма на работу.",
         "Осмотр проводят не позднее чем через год после приёма на работу.", False),
        ("Осмотр проводится не ранее одного года со дня приёма на работу.",
         "Осмотр проводят не раньше чем через год после приёма на работу.", True),
        ("Администрация сообщает об аварии в течение суток.",
         "Администрация сообщает об аварии не ранее чем через сутки.", False),
        # "и дольше" after the number is a lower bound, as "и более" is
        ("Наблюдение продолжается до трёх лет и более.", "Наблюдение продолжают до трёх лет и дольше.", True),
        # before an event against after it
        ("Организация до начала работ обязана получить разрешение.",
         "Организация получает разрешение после начала работ.", False),
        ("Организация до начала работ обязана получить разрешение.",
         "Разрешение организация обязана получить до начала работ.", True),
        # a date that ends a period ("по 31 декабря") against one that starts it ("с 31 декабря")
        ("Пункт 6 статьи 233 настоящего Кодекса действует по 31 декабря 2022 года.",
         "Пункт 6 статьи 233 применяется начиная с 31 декабря 2022 года.", False),
        ("Пункт 6 статьи 233 настоящего Кодекса действует по 31 декабря 2022 года.",
         "Пункт 6 статьи 233 действует до 31 декабря 2022 года.", True),
        # the event named by a clause's verb ("после того, как … вынесено решение") against its noun
        ("Главный врач вправе до вынесения решения по жалобе приостановить исполнение акта.",
         "Главный врач может приостановить исполнение акта только после того, как по жалобе вынесено решение.",
         False),
        ("Главный врач вправе до вынесения решения по жалобе приостановить исполнение акта.",
         "Главный врач может приостановить исполнение акта до того, как по жалобе вынесено решение.", True),
        # "по результатам применения" is after the use, "до начала его применения" before it
        ("Врач по результатам применения препарата представляет отчёт в комиссию по биоэтике.",
         "Врач представляет отчёт в комиссию по биоэтике ещё до начала его применения.", False),
        ("Врач по результатам применения препарата представляет отчёт в комиссию по биоэтике.",
         "Отчёт в комиссию по биоэтике врач представляет после применения препарата.", True),
        ("Врач до начала применения препарата получает согласие пациента.",
         "Согласие пациента врач получает по итогам применения препарата.", False),
    ],
)
def test_bounds_on_units_events_and_paragraph_numbers(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # requirements joined by "и": each is needed, keeping the first and leaving the last widens the rule
        ("Водители допускаются к рейсу после прохождения медосмотра и инструктажа по безопасности.",
         "Водителя допускают к рейсу после прохождения медосмотра.", False),
        ("Водители допускаются к рейсу после прохождения медосмотра и инструктажа по безопасности.",
         "Водителя допускают к рейсу, когда он прошёл медосмотр и инструктаж по безопасности.", True),
        ("Заниматься массажем вправе лица, имеющие диплом о медицинском образовании и сертификат массажиста.",
         "Массажем вправе заниматься лица с дипломом о медицинском образовании.", False),
        # cases listed with "и" are alternatives: one of them is enough
        ("Обработка проводится при бактериальных, вирусных и грибковых инфекциях раствором «Бета».",
         "При бактериальных инфекциях обработку проводят раствором «Бета».", True),
        # the list ends where the rule's predicate starts: the rest is what is done, not what is required
        ("Случаи отравлений после вакцинации подлежат регистрации в журнале и передаче в районный центр.",
         "Случаи отравлений после вакцинации подлежат регистрации в журнале.", True),
    ],
)
def test_a_dropped_joint_requirement_is_partial(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a list item's own number "3)" holds no "три месяца" of the claim
        ("1. Лечение прекращается: 3) досрочно, но не ранее чем через шесть месяцев.",
         "Лечение могут прекратить досрочно, но не ранее чем через три месяца.", False),
        ("1. Лечение прекращается: 3) досрочно, но не ранее чем через шесть месяцев.",
         "Лечение могут прекратить досрочно, но не ранее чем через 6 месяцев.", True),
        # "организация, оказывающая помощь в области …" names a kind of organisation, it restricts nothing
        ("Пациенту, выписанному из организации, оказывающей помощь в области психического здоровья, "
         "возвращаются его вещи.", "Пациенту, выписанному из организации, возвращают его вещи.", True),
        # "…, включающая в себя: 1) …" lists a definition's parts, it restricts nothing
        ("Отраслевая система квалификаций – совокупность механизмов регулирования спроса на квалификации, "
         "включающая в себя: 1) рамку квалификаций; 2) профессиональные стандарты.",
         "Отраслевая система квалификаций – это совокупность механизмов регулирования спроса на квалификации; "
         "в неё входят рамка квалификаций и профессиональные стандарты.", True),
        # a participle that does restrict still counts
        ("Лекарственные средства, отпускаемые по рецепту врача, хранятся в аптеке отдельно.",
         "Лекарственные средства хранятся в аптеке отдельно.", False),
    ],
)
def test_item_numbers_and_names_of_organisations(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a negation of the clause's last word negates the predicate before it: the same rule as "не являются основанием"
        ("Жалобы граждан не являются основанием для внеплановых проверок аптек.",
         "Сами по себе жалобы граждан основанием для внеплановых проверок аптек не служат.", True),
        ("Жалобы граждан не являются основанием для внеплановых проверок аптек.",
         "Жалобы граждан являются основанием для внеплановых проверок аптек.", False),
    ],
)
def test_a_negated_last_word_negates_its_clause(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "не должен быть ниже" is "должен быть не ниже": a requirement, not a prohibition
        ("Температура в палате не должна быть ниже двадцати градусов.",
         "Температура в палате должна быть не ниже двадцати градусов.", True),
        ("Уровень освещённости не должен быть ниже нормы.", "Уровень освещённости обязан быть не ниже нормы.", True),
        ("Уровень освещённости не должен быть ниже нормы.", "Уровень освещённости может быть ниже нормы.", False),
        # "не должен превышать" (masculine too) bounds a value, it forbids nothing
        ("Срок ожидания не должен превышать десяти дней.", "Срок ожидания — не более десяти дней.", True),
    ],
)
def test_a_negated_duty_on_a_level_is_a_bound(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # the paragraph's "3." and a reference "в пунктах 2 и 3" hold no "три" of the claim
        ("3. Объекты надзора делятся на две группы.", "Объекты надзора делятся на три группы.", False),
        ("Сведения, указанные в пунктах 2 и 3 настоящей статьи, хранятся в течение пяти лет.",
         "Эти сведения хранятся три года.", False),
        ("Сведения, указанные в пунктах 2 и 3 настоящей статьи, хранятся в течение пяти лет.",
         "Эти сведения хранятся пять лет.", True),
        # a list's last item number is how many items it has
        ("Смерть констатируют по совокупности признаков: 1) остановка сердца; 2) прекращение дыхания; "
         "3) отсутствие реакции зрачков.", "Смерть констатируют по трём признакам сразу: остановка сердца, "
         "прекращение дыхания и отсутствие реакции зрачков.", True),
        # the claim's own reference "п. 5 ст. 12" is no number it states
        ("Освидетельствование проводится по основаниям, предусмотренным пунктом 5 статьи 12 настоящего Закона.",
         "Освидетельствование проводят по основаниям п. 5 ст. 12 Закона.", True),
        # a fragment that names its article only as "настоящей статьи" cannot hold the article's
        # number an answer gives; the paragraph's number it still must hold
        ("Передача данных третьим лицам осуществляется с согласия лица, кроме случаев, указанных в пункте 4 "
         "настоящей статьи.", "Третьим лицам данные передают с согласия лица, кроме случаев из п. 4 ст. 60 Кодекса.",
         True),
        ("Передача данных третьим лицам осуществляется с согласия лица, кроме случаев, указанных в пункте 4 "
         "настоящей статьи.", "Третьим лицам данные передают с согласия лица, кроме случаев из п. 5 ст. 60 Кодекса.",
         False),
        ("Передача данных третьим лицам осуществляется с согласия лица.",
         "Согласно ст. 60 Кодекса данные третьим лицам передают с согласия лица.", False),
        # how often: the count the same, the period not
        ("Проверки без посещения проводятся не чаще одного раза в квартал.",
         "Проверки без посещения проводятся не чаще одного раза в месяц.", False),
        ("Проверки без посещения проводятся не чаще одного раза в квартал.",
         "Проверки без посещения проводят не чаще раза в квартал.", True),
    ],
)
def test_item_numbers_references_and_periods(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "любое" (the neuter form) generalises as "любой" does
        ("Согласие пациента при инвазивных вмешательствах оформляется письменно.",
         "Согласие пациента на любое вмешательство оформляется письменно.", False),
        ("Согласие пациента при инвазивных вмешательствах оформляется письменно.",
         "Согласие пациента при инвазивных вмешательствах оформляют письменно.", True),
        # an age bound said without its number keeps the bound
        ("Кормящая мать ребенка до одного года обеспечивается бесплатным питанием в стационаре.",
         "Кормящую мать ребенка, которому еще не исполнился год, стационар обеспечивает бесплатным питанием.", True),
        ("Кормящая мать ребенка до одного года обеспечивается бесплатным питанием в стационаре.",
         "Кормящую мать ребенка стационар обеспечивает бесплатным питанием.", False),
        # "не обязательно:" answers the question as "нет" does; what follows is the claim
        ("Освидетельствование несовершеннолетних проводится с согласия их законных представителей или по их "
         "желанию.", "Не обязательно: подростка освидетельствуют с согласия законных представителей либо по его "
         "желанию.", True),
        # "даже если …" extends the rule to a case the fragment does not name (here its exception)
        ("Не допускается использование детей в рекламе лекарственных средств, кроме средств для детей.",
         "Использовать детей в рекламе лекарственных средств не допускается, даже если средство для детей.", False),
        ("Прививки проводятся независимо от гражданства ребенка.",
         "Прививки проводятся даже если ребенок не гражданин.", True),
        # a body the fragment does not name at all is an added detail
        ("Сведения о донорах вносятся в регистр медицинской организацией в течение трех рабочих дней после "
         "донации с указанием группы крови и резус-фактора.", "Медорганизация заносит данные донора в регистр за "
         "три рабочих дня после сдачи крови, отмечая группу крови и резус, о чем уведомляет министерство.", False),
        ("Сведения о донорах вносятся в регистр медицинской организацией в течение трех рабочих дней после "
         "донации с указанием группы крови и резус-фактора.", "Медорганизация заносит данные донора в регистр за "
         "три рабочих дня после сдачи крови, отмечая группу крови и резус.", True),
        # a term the fragment names only as set elsewhere states no time: the claim's month is its own
        ("Неисполнение рекомендации в установленный срок является основанием для проверки с посещением объекта.",
         "Если рекомендацию не исполнили в установленный срок, объект проверяют с посещением не позднее чем "
         "через месяц.", False),
        ("Неисполнение рекомендации в установленный срок является основанием для проверки с посещением объекта.",
         "Если рекомендацию не исполнили в установленный срок, объект проверяют с посещением.", True),
    ],
)
def test_quantifier_forms_age_bounds_even_and_added_bodies(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a quoted law title states no rule: «О разрешениях …» is no permission
        ("Лица до начала деятельности обязаны уведомить об этом государственный орган в порядке, установленном "
         "Законом «О разрешениях и уведомлениях».", "Лица могут уведомить государственный орган о начале "
         "деятельности.", False),
        ("Лица до начала деятельности обязаны уведомить об этом государственный орган в порядке, установленном "
         "Законом «О разрешениях и уведомлениях».", "Лица до начала деятельности обязаны уведомить "
         "государственный орган.", True),
        # a choice the claim spells out, where the fragment states plain law
        ("В организациях первичной помощи создаются отделения неотложной помощи.",
         "Организации первичной помощи по своему усмотрению создают отделения неотложной помощи.", False),
        ("В организациях первичной помощи создаются отделения неотложной помощи.",
         "В организациях первичной помощи создают отделения неотложной помощи.", True),
        # "приоритетное право" is the fragment's "преимущественное право"
        ("Преимущественное право на заключение договоров имеют аккредитованные организации.",
         "Аккредитованные организации имеют приоритетное право на заключение договоров.", True),
        # "не достиг восемнадцати лет" bounds the age from above
        ("Пациент имеет право на обучение по программе специальной школы, если пациент не достиг восемнадцати лет.",
         "Пациент старше восемнадцати лет имеет право на обучение по программе специальной школы.", False),
        ("Пациент имеет право на обучение по программе специальной школы, если пациент не достиг восемнадцати лет.",
         "Пациент младше восемнадцати лет имеет право на обучение по программе специальной школы.", True),
        # "в день донации" is the day of an event, not a term of one day
        ("Не допускается привлечение работника-донора в дни донации к работам в ночное время.",
         "В день донации работника-донора нельзя привлекать к работе в ночное время.", True),
        # the claim bars the act without consent; the fragment does it without permission
        ("Сведения, составляющие коммерческую тайну, предоставляются членам комиссии без получения письменного "
         "разрешения лица.", "Без согласия лица сведения, составляющие коммерческую тайну, членам комиссии не "
         "передаются.", False),
        ("Сведения, составляющие коммерческую тайну, предоставляются членам комиссии без получения письменного "
         "разрешения лица.", "Сведения, составляющие коммерческую тайну, членам комиссии передаются без "
         "письменного разрешения лица.", True),
        # a day of a month is compared as a date: "до 1 апреля" is not "до 1 марта"
        ("Информация предоставляется ежегодно по состоянию на 1 января до 1 марта года, следующего за отчетным.",
         "Данные на 1 января подают раз в год до 1 апреля следующего года.", False),
        ("Информация предоставляется ежегодно по состоянию на 1 января до 1 марта года, следующего за отчетным.",
         "Данные на 1 января подают раз в год до 1 марта следующего года.", True),
        # an exception the claim holds none of the own words of is dropped, whatever of the rest it holds
        ("В случае уклонения от лечения граждане, больные заболеваниями, представляющими опасность для "
         "окружающих, за исключением ВИЧ-инфекции, подвергаются лечению в принудительном порядке в соответствии "
         "с настоящим Кодексом.", "Гражданин с заболеванием, опасным для окружающих, который уклоняется от "
         "лечения, подвергается лечению в принудительном порядке в соответствии с Кодексом.", False),
        # "подробные" is "детальные"
        ("Должностные лица получают детальные отчеты о внесенных изменениях.",
         "Должностные лица получают подробные отчеты о внесенных изменениях.", True),
        # "независимо от форм собственности" licenses no "любая организация"
        ("Разрешение выдается микробиологическим лабораториям независимо от форм собственности.",
         "Разрешение выдается любой организации независимо от формы собственности.", False),
        ("Разрешение выдается микробиологическим лабораториям независимо от форм собственности.",
         "Разрешение выдают микробиологическим лабораториям любой формы собственности.", True),
        # "сразу после подписания договора" is after the contract is concluded, not before
        ("До заключения договора женщина обязана предоставить полную информацию о своем здоровье.",
         "Сразу после подписания договора женщина обязана предоставить полную информацию о своем здоровье.", False),
        # "частнопрактикующие врачи" are those "занимающиеся частной медицинской практикой"
        ("Медицинская помощь оказывается организациями здравоохранения и физическими лицами, занимающимися "
         "частной медицинской практикой, бесплатно в пределах гарантированного объема.", "Помощь бесплатно "
         "в пределах гарантированного объема оказывают организации здравоохранения и частнопрактикующие врачи.",
         True),
    ],
)
def test_titles_choices_ages_reached_and_days_of_events(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # one body, its sphere in words of one root: "обращения лекарств" is "обращения лекарственных средств"
        ("Субъект контроля вправе направить в государственный орган в сфере обращения лекарственных средств "
         "возражение в течение пяти рабочих дней.", "Субъект контроля вправе направить возражение в госорган в "
         "сфере обращения лекарств в течение пяти рабочих дней.", True),
        ("Субъект контроля вправе направить в государственный орган в сфере обращения лекарственных средств "
         "возражение в течение пяти рабочих дней.", "Субъект контроля вправе направить возражение в госорган в "
         "сфере санитарно-эпидемиологического благополучия в течение пяти рабочих дней.", False),
        # an objection is made in disagreement: it keeps "в случае несогласия"
        ("Субъект контроля в случае несогласия с нарушениями вправе направить возражение в течение пяти рабочих "
         "дней.", "Субъект контроля вправе направить возражение в течение пяти рабочих дней.", True),
        # "раз в полугодие" is "раз в полгода", not "раз в год"
        ("Мониторинг результатов аудита проводится один раз в полугодие.", "Мониторинг результатов аудита "
         "проводят раз в полгода.", True),
        ("Мониторинг результатов аудита проводится один раз в полугодие.", "Мониторинг результатов аудита "
         "проводят раз в год.", False),
        # "госмонополия", "соцстандарты" expanded; "прямая польза" is "непосредственная польза"
        ("Оценка качества лекарственных средств относится к государственной монополии.",
         "Оценка качества лекарственных средств отнесена к госмонополии.", True),
        ("Применение допускается при наличии научных оснований ожидать непосредственную пользу для пациента.",
         "Применение допускается, если есть научные основания ожидать прямой пользы для пациента.", True),
    ],
)
def test_spheres_objections_half_years_and_synonyms(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "обязательный медосмотр" the answer repeats names the examination: it states no duty
        ("выносить постановления о временном отстранении от работы лиц, своевременно не прошедших обязательные "
         "медицинские осмотры;", "Инспектор может постановлением временно отстранить от работы сотрудника, если "
         "тот вовремя не прошёл обязательный медосмотр, до прохождения осмотра.", True),
        # a name only the fragment uses still binds: "по желанию" against "обязательное обследование"
        ("Донор перед каждой донацией проходит обязательное медицинское обследование.",
         "Донор проходит медобследование перед донацией по желанию.", False),
        # "не является основанием для отказа": refusing on that ground is not allowed
        ("Отсутствие полиса не является основанием для отказа в экстренной помощи.",
         "Без полиса в экстренной помощи могут отказать.", False),
        # an instance after "в частности," (a comma after the marker) is a detail of the claim's own
        ("Работники проходят медицинские обследования по месту работы.", "Работники проходят регулярно "
         "медицинские обследования, в частности, флюорографию, по месту работы.", False),
        # "срочная необходимость" is "неотложная необходимость"
        ("Ремонт, не связанный с неотложной необходимостью, проводится в дневное время.",
         "Ремонт, не связанный со срочной необходимостью, проводится в дневное время.", True),
        # negative concord: "нельзя … ни к X, ни к Y" negates each item once, as "не допускается … к X, Y"
        ("Не допускается привлечение беременной работницы к работам в ночное время, сверхурочным работам и "
         "тяжелым работам.", "Беременную работницу нельзя привлекать ни к ночной работе, ни к сверхурочке, ни "
         "к тяжёлым работам.", True),
        # "как и все остальные граждане" compares, it quantifies no class of the claim's
        ("Лица с инвалидностью имеют право на бесплатный проезд наравне с другими гражданами.",
         "Люди с инвалидностью, как и все остальные граждане, имеют право на бесплатный проезд.", True),
        # "на добровольной основе" leaves it to choice, as "по своему желанию" does
        ("Сертификация специалистов проводится на добровольной основе.",
         "Специалисты проходят сертификацию по своему желанию.", True),
        # "Не обязательно сразу:" answers the question; the answer's content follows
        ("Оператор должен получить лицензию до начала эксплуатации объекта.",
         "Не обязательно сразу: оператор должен получить лицензию до начала эксплуатации объекта.", True),
        # the patient is the fragment's "лицо, отказавшееся от лечения"
        ("Лицу, отказавшемуся от лечения, либо его законному представителю врач разъясняет последствия.",
         "Пациенту или его представителю нужно разъяснить последствия отказа от лечения.", True),
    ],
)
def test_kind_names_grounds_instances_concord_and_persons(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_abbreviations_that_begin_another() -> None:
    """"госорганизации" is expanded before "госорган" (which begins it) could misread it."""
    assert lx.expand_abbreviations("госорганизации и госорганы") == "государственные организации и государственный органы"
    assert lx.expand_abbreviations("госучет по профпатологии") == "государственный учет по профессиональной патологии"


@pytest.mark.parametrize(
    ("claim", "evidence", "missing", "fires"),
    [
        # a kind and its negation exclude one another
        ("для неинтервенционного исследования", "для интервенционного исследования", ["неинтервенционного"], True),
        ("в центральную комиссию", "в локальную комиссию", ["центральную"], True),
        # a narrower kind, or an adjective of another meaning, is no other kind
        ("психиатрическая помощь оказывается", "медицинская помощь оказывается", ["психиатрическая"], False),
        ("посторонних лиц не допускают", "третьих лиц не допускают", ["посторонних"], False),
        ("для иностранных инвесторов", "для отечественных инвесторов", ["иностранных"], False),
        # "прочие" points ("the other ones"); "казахстанских" is the Code's "отечественных"
        ("транспорт и прочие бытовые услуги", "дополнительные бытовые и сервисные услуги", ["прочие"], False),
        ("для казахстанских инвесторов", "для отечественных инвесторов", ["казахстанских"], False),
    ],
)
def test_only_kinds_that_exclude_one_another_conflict(claim: str, evidence: str, missing: list[str],
                                                      fires: bool) -> None:
    assert bool(modifier_conflict(claim, evidence, missing)) is fires


def test_the_akim_and_the_council_are_actors_of_their_own() -> None:
    assert lx.actors("состав утверждает аким области") == frozenset({"аким"})
    assert lx.actors("утверждается маслихатом") == frozenset({"местный представительный орган"})
    assert lx.actors("акимат области") == frozenset({"местный исполнительный орган"})


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # who approves: the fragment's head of the organisation, not the commission it consults
        ("Состав комиссии утверждается приказом руководителя организации по согласованию с центральной "
         "комиссией.", "Состав комиссии утверждает центральная комиссия по представлению руководителя "
         "организации.", False),
        ("Состав комиссии утверждается приказом руководителя организации по согласованию с центральной "
         "комиссией.", "Состав комиссии утверждает руководитель организации по согласованию с центральной "
         "комиссией.", True),
        # the akim is not the council that approves
        ("Состав региональных советов утверждается местными представительными органами.",
         "Состав региональных советов утверждает аким области.", False),
    ],
)
def test_who_approves(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # "к одному конкретному случаю" is "one particular case", no count
        ("Электронная медицинская запись – набор данных, относящихся к конкретному случаю оказания помощи.",
         "Электронная медицинская запись — это набор данных, относящихся к одному конкретному случаю оказания "
         "помощи.", True),
        # "исключительно" keeps the fragment's "только" in other words
        ("Медицинские средства и методы применяются только в диагностических и лечебных целях и запрещаются для "
         "использования в виде наказания.", "Медицинские методы и средства используют исключительно для "
         "диагностики и лечения, а в качестве наказания их применять запрещено.", True),
        # "по его желанию" leaves it to choice: "обязано трудиться" changes the modality
        ("Лицо, находящееся на принудительном лечении, по его желанию привлекается к труду.",
         "Лицо на принудительном лечении обязано трудиться.", False),
        # "очередное подтверждение" is "последующее подтверждение"
        ("Сертификат выдается первые два раза на пять лет, при последующем подтверждении – бессрочно.",
         "Сертификат выдают первые два раза на пять лет, а после очередного подтверждения — бессрочно.", True),
        # a territorial body is not the employer the fragment makes responsible
        ("Ответственность за организацию расследования несет работодатель.",
         "Ответственность за организацию расследования несет территориальный орган санэпидслужбы.", False),
        # the fragment ends where its conditions begin: a claim stating none has dropped them
        ("В исключительных случаях препараты применяются без клинических исследований при условии:",
         "В исключительных случаях препараты применяются без клинических исследований.", False),
        # "граждане РК" restates the state whose law it is, no word a fragment must hold
        ("3) свободный выбор врача и медицинской организации;",
         "Да, у граждан РК есть право самостоятельно выбирать врача и медицинскую организацию.", True),
    ],
)
def test_counts_durations_restrictions_choices_bodies_and_states(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


def test_an_instance_of_a_listed_item_adds_no_detail() -> None:
    """A fragment that is a list's item names one instance: the claim's "в том числе" rewords it."""
    judge = OfflineJudge(workers=1)
    result = judge.judge([JudgeInput(
        "Профилактика включает в том числе развитие выпуска и продажи пищевых продуктов, обогащенных йодом.",
        ("Профилактика – система мероприятий по предупреждению заболеваний, направленных на:",
         "3) развитие производства и реализацию обогащенных соединениями йода пищевых продуктов."))])[0]
    assert result.value == "supported"


def test_without_a_pronoun_negates_the_pronouns_noun() -> None:
    assert lx.negated_words_ru("без них потребитель подвергается риску") == []
    assert lx.negated_words_ru("с посещением либо без него запрещено") == ["посещением"]
    assert lx.expand_abbreviations("ип и госавиация, спецгосорганы") == (
        "индивидуальный предприниматель и государственная авиация, специальные государственные органы")


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # nothing stands in the way: a permission, against the fragment's prohibition
        ("Запрещается привлекать к дежурствам работников, не прошедших инструктаж.",
         "Отсутствие инструктажа само по себе не препятствует привлечению работника к дежурствам.", False),
        ("Запрещается размещение рекламы лекарственных средств в детских учреждениях.",
         "Да, ничто не мешает размещать рекламу лекарств в детских учреждениях.", False),
        ("Инспекторам запрещается требовать документы, не относящиеся к проверке.",
         "Инспекторы не лишены права требовать документы, не относящиеся к проверке.", False),
        ("Зарегистрированные до вступления приказа в силу изделия применяются без ограничений.",
         "Изделия, зарегистрированные до вступления приказа в силу, применять нельзя.", False),
        # the same idioms where the fragment permits too
        ("Пациент вправе пригласить родственника на консультацию.",
         "Ничто не мешает пациенту пригласить на консультацию родственника.", True),
        ("Ввезённые до истечения срока удостоверения лекарственные средства применяются без ограничений.",
         "Лекарственные средства, ввезённые до истечения срока удостоверения, можно применять.", True),
    ],
)
def test_nothing_stands_in_the_way_is_a_permission(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a ministry is named by its field
        ("Обследование иностранных граждан согласовывается с Министерством иностранных дел.",
         "Обследование иностранных граждан согласовывается с Министерством внутренних дел.", False),
        ("Порядок охраны определяется Министерством внутренних дел совместно с уполномоченным органом.",
         "Порядок охраны определяет Минюст совместно с уполномоченным органом.", False),
        ("Обследование иностранных граждан согласовывается с Министерством иностранных дел.",
         "Обследование иностранных граждан согласовывают с МИД.", True),
        ("Порядок охраны определяется Министерством юстиции совместно с уполномоченным органом.",
         "Порядок охраны определяет Минюст совместно с уполномоченным органом.", True),
        # "обязательные прививки" names the fragment's "обязательные профилактические прививки":
        # the name states no duty, the claim's "могут" against the fragment's "обязаны" differs
        ("Лица, проживающие в стране, обязаны получать обязательные профилактические прививки.",
         "Проживающие в стране лица могут получать обязательные прививки.", False),
        ("Лица, проживающие в стране, обязаны получать обязательные профилактические прививки.",
         "Проживающие в стране лица должны получать обязательные прививки.", True),
    ],
)
def test_ministries_by_field_and_duty_names_across_an_adjective(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the permit a body issues is no permission of the sentence
        ("вывоз без разрешения уполномоченного органа", frozenset()),
        ("орган выдает разрешение на проведение исследования", frozenset()),
        ("курение на территории разрешено", frozenset({"permit"})),
        ("использование разрешенных препаратов", frozenset({"permit"})),
    ],
)
def test_a_permit_is_not_a_permission(text: str, expected: frozenset[str]) -> None:
    assert lx.modalities(text) == expected


def test_a_long_claim_barring_the_act_without_something() -> None:
    # "Без X … нельзя" across a whole sentence, against a fragment that does it without X
    evidence = ("Образцы биологического материала клинических исследований и стандартные образцы субстанций "
                "ввозятся на территорию страны без разрешения уполномоченного органа.")
    claim = ("Без разрешения уполномоченного органа образцы биоматериала клинических исследований, а также "
             "стандартные образцы субстанций и их примесей ввезти в страну нельзя.")
    assert_verdict(evidence, claim, False)
    assert_verdict(evidence, "Образцы субстанций ввозят в страну без разрешения уполномоченного органа.", True)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # the fragment negates a word the claim states plainly, in another order than the fragment's
        ("Время нахождения в санатории в срок отпуска не засчитывается.",
         "Да, время в санатории всё равно засчитывается в срок отпуска.", False),
        ("Результаты анкетирования не являются основанием для увольнения работника.",
         "Да, для увольнения работника основанием служат и результаты анкетирования.", False),
        # the same negation kept and moved, or said in one word ("минуя")
        ("Результаты анкетирования не являются основанием для увольнения работника.",
         "Увольнять работника на основании результатов анкетирования нельзя: основанием они не являются.", True),
        ("Медицинская помощь без направления оказывается на платной основе.",
         "Минуя направление, пациент получает такую медицинскую помощь платно.", True),
    ],
)
def test_a_negation_of_the_fragment_the_claim_drops(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a bound in words, with no number to compare, turned to the other side
        ("Пособие выплачивается в пределах установленного лимита расходов.",
         "Пособие выплачивается сверх установленного лимита расходов.", False),
        ("Шум в палате не должен быть ниже уровня, установленного нормативом.",
         "Шум в палате не должен превышать уровень, установленный нормативом.", False),
        ("Обжалование проводится в вышестоящем органе контроля.",
         "Обжалование проводится в нижестоящем органе контроля.", False),
        ("Льгота предоставляется семьям, доход которых не превышает прожиточного минимума.",
         "Льгота предоставляется семьям, доход которых превышает прожиточный минимум.", False),
        # the same bound kept in other words
        ("Пособие выплачивается в пределах установленного лимита расходов.",
         "Пособие платят, не выходя за пределы установленного лимита расходов.", True),
        ("Льгота предоставляется семьям, доход которых не превышает прожиточного минимума.",
         "Льготу получают семьи, чей доход не превышает прожиточный минимум.", True),
    ],
)
def test_bounds_in_words_turned_to_the_other_side(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # an exception named with the rule's own words ("осмотр оборудования"): the claim that keeps
        # those words has not kept the exception; its other word ("внепланового") is what counts
        ("Осмотр оборудования проводится ежегодно, за исключением внепланового осмотра оборудования.",
         "Осмотр оборудования проводят каждый год.", False),
        ("Осмотр оборудования проводится ежегодно, за исключением внепланового осмотра оборудования.",
         "Осмотр оборудования проводят каждый год, кроме внепланового.", True),
        # "квартал" is three months
        ("Отчёт представляется не чаще одного раза в квартал.", "Отчёт сдают не чаще раза в три месяца.", True),
        ("Отчёт представляется не чаще одного раза в квартал.", "Отчёт сдают как минимум раз в три месяца.", False),
        # "с момента истечения" is after it, as "после истечения" is
        ("Если отчёт не сдан до истечения срока, инспектор в течение пяти дней с момента истечения срока "
         "направляет уведомление.",
         "Если отчёт не сдан до окончания срока, инспектор в течение пяти дней после истечения срока "
         "направляет уведомление.", True),
        # "только с согласия" against a fragment that does it "без получения согласия"; not against one
        # that bars doing it without ("не могут передаваться без согласия" is "только с согласия")
        ("Сведения передаются комиссии без получения письменного согласия владельца.",
         "Сведения передаются комиссии только с письменного согласия владельца.", False),
        ("Сведения не могут передаваться комиссии без письменного согласия владельца.",
         "Сведения передаются комиссии только с письменного согласия владельца.", True),
        # "какого-либо": its hyphen is no clause break, the negation reaches the consent
        ("Вскрытие проводится при наличии письменного согласия супруга.",
         "Вскрытие проводится без какого-либо согласия супруга.", False),
        # "не только" against "исключительно"
        ("Данные используются исключительно для выполнения служебных обязанностей.",
         "Данные можно использовать не только для выполнения служебных обязанностей.", False),
        # "можно только по решению суда" restricts the act to a case: no permission against the
        # fragment's obligation beside it
        ("В течение первого года пациент подлежит осмотру комиссией ежемесячно для решения вопроса о продлении "
         "лечения. Продление лечения свыше года производится по решению суда.",
         "Первый год комиссия осматривает пациента ежемесячно, решая вопрос о продлении, а продлить лечение "
         "свыше года можно только по решению суда.", True),
        # an organisation's administration is an actor of its own
        ("Трудовое устройство выписанного лица осуществляется по месту жительства и возлагается на местные "
         "исполнительные органы.",
         "Трудовое устройство выписанного лица возлагается на администрацию.", False),
        # "предельно допустимые" bound from above, "минимальные" from below
        ("Нормативы устанавливают предельно допустимые уровни шума в палатах.",
         "Нормативы устанавливают минимальные уровни шума в палатах.", False),
    ],
)
def test_exceptions_quarters_waived_requirements_and_restricted_permissions(
        evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("реклама в сми", "реклама в средства массовой информации"),
        ("полис дмс", "полис добровольного медицинского страхования"),
        ("программа эко", "программа экстракорпоральное оплодотворение"),
        # a head inside a word is no abbreviation: "эко" in "экономического"
        ("экономического союза", "экономического союза"),
    ],
)
def test_more_abbreviations(text: str, expected: str) -> None:
    assert lx.expand_abbreviations(text) == expected


def test_a_permission_restricted_to_a_case_permits_nothing() -> None:
    assert lx.modalities("продлить лечение можно только по решению суда") == frozenset()
    assert lx.modalities("продлить лечение можно по решению суда") == {"permit"}


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        # a clause-final negation whose verb is no content word ("не являются") negates the words before it
        ("Результаты опроса не являются основанием для проведения проверок и надзора.",
         "Сами по себе результаты опроса основанием для проверок и надзора не являются.", True),
        # "нет запрета", "запрета … не устанавливает": a permission, against a fragment's prohibition
        ("Вывоз образцов в коммерческих целях не допускается.",
         "Запрета на вывоз образцов в коммерческих целях закон не устанавливает.", False),
        # a claim that denies its predicate in a word the fragment does not use, where the fragment
        # negates nothing
        ("Национальный реестр гармонизируется с требованиями международных стандартов.",
         "Национальный реестр с требованиями международных стандартов не согласуется.", False),
        # not when the negation answers the question before a colon, when the fragment makes an
        # exception the negation restates, or when the fragment permits
        ("За работником на время лечения сохраняется место работы.",
         "Не потеряете: на время лечения за работником сохраняется место работы.", True),
        ("Работники подлежат переводу на другую работу (за исключением лиц, зараженных гриппом).",
         "Работники подлежат переводу на другую работу; на больных гриппом это не распространяется.", True),
        ("Пациент вправе пройти осмотр в любой поликлинике.",
         "Проходить осмотр именно в своей поликлинике пациент не обязан.", True),
    ],
)
def test_clause_final_negations_and_no_prohibition(evidence: str, claim: str, supported: bool) -> None:
    assert_verdict(evidence, claim, supported)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("привод осуществляется органами внутренних дел", {"полиция"}),
        # the bailiffs are no court, the President's offices no organisation's administration
        ("доставку обеспечивают судебные исполнители", {"судебный исполнитель"}),
        ("перечень утверждается управлением делами президента", {"управление делами президента"}),
        ("по согласованию с администрацией президента", {"администрация президента"}),
        ("группы формирует координационный совет", {"координационный совет"}),
        ("доклад направляется уполномоченному по правам человека", {"уполномоченный по правам человека"}),
    ],
)
def test_more_actors(text: str, expected: set[str]) -> None:
    assert set(lx.actors(text)) == expected


def test_a_recommendation_any_cited_fragment_states_is_held() -> None:
    # the list item that says "рекомендуемый" shares few words with the claim: it is still cited
    evidence = ("Стандарт оказания помощи разрабатывается по профилям заболеваний и включает в себя следующие "
                "требования:", "5) рекомендуемый штат работников;")
    claim = "Стандарт оказания помощи составляется по профилям заболеваний, и в нём указывается рекомендуемый штат."
    features = extract_features(JudgeInput(claim, evidence))
    assert features is not None
    result = rules_verdict(features)
    assert result.value == "supported", result.reason
