"""The constructions of an accusation ("I suspect 7", "5 is black", «четвёртый мне не нравится») and of a black
teammate named ("my partner 3", «мы с третьим — команда»), in English and Russian, over the normalised text (`¤N` a
seat). Each pattern's groups hold the seats it states."""

from __future__ import annotations

import re

from arena.research.speech_reader.seats import L, S
from arena.research.speech_reader.statement import ACCUSE, TEAMMATE

PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    ACCUSE: (
        # a seat (or list) called black, with hedges between: "3 smells black", "9 seems like the most obvious mafia"
        re.compile(
            L + r"\s*(?:(?:both|also|all|really|clearly|definitely)\s+)?(?:is|are|'s|=|—|:|was|looks?|seems?|smells?|"
            r"feels?|reads?|remains?|stays?)?\s+(?:(?:definitely|def|clearly|"
            r"probably|surely|obviously|totally|certainly|really|very|pretty|so|both|also|too|just|likely|most likely|"
            r"like|a|an|the|most|obvious|most obvious|100%|for sure|to me|kinda|almost certainly|a black pair|"
            r"the most obvious)\s+){0,4}(?:black|mafia|mafioso|the don|don|scum|suspicious|sus|a liar|lying|fake|"
            r"a wolf|evil)(?![a-z])"
        ),
        re.compile(r"(?:^|[.!?:,]\s*)" + L + r"\s*[—=:]?\s*(?:black|mafia|scum)(?![a-z])"),  # "my read: 5 black"
        re.compile(
            L + r"\s*(?:—|это|,)?\s*(?:(?:точно|явно|скорее|скорее всего|по-любому|стопроцентн[а-я]*|сам[а-я]+|"
            r"очевидн[а-я]*|оба|обе|тоже|для меня|мне|по-моему|наверняка|100%|возможно|безусловно|,|—|это)\s*){0,4}"
            r"(?:черн[а-я]*|мафи[а-я]*|дон|доном|подозрительн[а-я]*|фейк|лжец|врет|лжет|пахнет черн[а-я]*)(?![а-я])"
        ),
        re.compile(
            r"(?:^|[.!?:,]\s*)(?:black team|blacks?|mafia|suspects?|the mafia is|черные|мафия|подозреваемые)\s*[:—=]\s*"
            r"(?:это\s+|скорее\s+|probably\s+|possibly\s+|likely\s+|наверное\s+)?" + L
        ),
        re.compile(
            L + r"\s*,?\s*(?:is|—)?\s*(?:(?:probably|likely|most likely|скорее всего|наверное|возможно|,)\s*)*"
            r"(?:his|her|their|его|ее|их)\s+(?:partner|teammate|напарни[а-я]*)"
        ),
        re.compile(
            r"\bthe only (?:black|mafia|don)\b[^.¤]{0,40}\bis\s+"
            + S
            + r"|(?<![а-я])единственн[а-я]*[^.¤]{0,40}(?:черн|мафи|дон)[^.¤]{0,20}—\s*"
            + S
        ),
        re.compile(
            S + r"\s*,\s*(?:you're|you are|ты|вы)\s+(?:\w+\s+)?(?:black|mafia|the don|a liar|lying|черн[а-я]*|"
            r"мафи[а-я]*|дон|лжец|врешь|лжешь)"
        ),
        re.compile(
            r"(?:мне\s+)?не нравится\s+" + S + r"|" + S + r"\s+(?:мне\s+)?не нравится|"
            r"\bi\s+(?:really\s+)?(?:don't|do not) like\s+" + S
        ),
        re.compile(r"(?<![а-я])не (?:доверяю|верю)\s+" + S),
        re.compile(
            L + r"\s+(?:is|are|'s|looks?|seems?)\s+(?:(?:acting|being|really|very|pretty|so|a bit|kinda|super)\s+)*"
            r"(?:shady|sketchy|fishy|scummy|dodgy|off|weird|suspect)\b"
        ),
        re.compile(
            r"\bscum\s*read\s+(?:on|for)\s+" + L + r"|" + S + r"'s\s+(?:claim|story)\s+is\s+(?:fake|a lie|false)"
        ),
        re.compile(r"\bsomething(?:'s| is)\s+(?:off|fishy|wrong)\s+(?:about|with)\s+" + L),
        re.compile(L + r"\s+(?:[а-я]+\s+)?(?:мутн[а-я]*|темнит|сливается|подозрителен|подозрительна)(?![а-я])"),
        re.compile(r"(?<![а-я])подозрени[а-я]*\s+(?:к|против)\s+" + L),
        re.compile(L + r"\s+(?:[а-я]+\s+)?похож[а-я]*\s+на\s+(?:мафию|черн[а-я]*|дона)"),
        re.compile(r"\bi\s+(?:strongly\s+|really\s+)?suspect\s+" + L),
        re.compile(r"\bmost suspicious\b[^.¤]{0,12}" + L),
        re.compile(
            L + r"\s+(?:is|are|looks?|seems?|'s)\s+(?:(?!not\b|never\b|no\b)\w+\s+){0,3}?"
            r"(?:black|mafia|mafioso|don|suspicious|a liar|"
            r"lying|fake)\b"
        ),
        re.compile(L + r"\s+(?:are|is)\s+(?:my|our)\s+(?:main\s+|top\s+|prime\s+)?suspects?\b"),
        re.compile(r"\b(?:my|our)\s+suspicion\s+(?:falls|is|goes)\s+(?:on|to)\s+" + L),
        re.compile(r"\b(?:bad feeling|doubts?|suspicions?)\s+about\s+" + L),
        re.compile(r"(?<![а-я])(?:плохое предчувствие|сомнения|подозрения)\s+(?:насчет|по поводу|о|об)\s+" + L),
        re.compile(L + r"\s+(?:has been|have been|keeps?|kept)\s+lying"),
        re.compile(
            r"\bmost likely\s+(?:the\s+)?(?:don|mafia|mafioso|black)\b[^.¤]{0,8}"
            + L
            + r"|"
            + L
            + r"\s+is\s+(?:the\s+)?most likely\s+(?:the\s+)?(?:don|mafia|mafioso|black)\b"
        ),
        re.compile(S + r"\s*—?\s*(?:самый|самая)\s+(?:вероятный|явный|очевидный)\s+(?:дон|мафиози|черный)"),
        re.compile(S + r"\s+(?:[а-я]+\s+){0,3}(?:ведет себя|играет)\s+(?:[а-я]+\s+)?по-черному"),
        re.compile(S + r"\s+is the one i trust (?:the\s+)?least|\btrust\s+" + S + r"\s+(?:the\s+)?least"),
        re.compile(L + r"\s+(?:look|looks|seem|seems)\s+like\s+(?:the\s+|a\s+)?(?:mafia|mafioso|black|don)\b"),
        re.compile(r"\b(?:main|top|prime|first|biggest)\s+suspect\s+(?:is|:|—)?\s*" + S),
        re.compile(
            L + r"\s+(?:is|are|looks|seems|'s)\s+"
            r"(?:the\s+most\s+|definitely\s+|probably\s+|clearly\s+|very\s+|pretty\s+)?"
            r"(?:black|mafia|a mafioso|the don|suspicious|a liar|lying|a fake|fake)\b(?:\s+to me)?"
        ),
        re.compile(S + r"\s+(?:is not|isn't) the (?:real\s+)?sheriff"),
        re.compile(
            S + r"\s+is the one to watch|\bkeep (?:your |our )?eyes on\s+" + S + r"|\blook at\s+" + S + r"\s+instead"
        ),
        re.compile(S + r"\s*—?\s*не шериф|(?<![а-я])(?:смотреть\s+(?:надо|нужно)|смотрите)\s+на\s+" + S),
        re.compile(r"\bi think\s+" + S + r"\s+is\s+(?:black|mafia|the don|a mafioso)\b"),
        re.compile(r"\bi\s+(?:do not|don't)\s+trust\s+" + S),
        re.compile(r"\b(?:do not|don't)\s+believe\s+" + S),
        re.compile(r"(?<![а-я])(?:подозреваю|подозреваемый\s*—?|подозреваемый это)\s+" + L),
        re.compile(r"(?<![а-я])(?:самы[ей]\s+)?подозрительн[а-я]*\s*[—:]\s*" + L),
        re.compile(r"(?<![а-я])подозреваем[а-я]*\s*[—:]\s*" + L),
        re.compile(r"(?<![а-я])подозрени[а-я]*\s+(?:[а-я]+\s+)?(?:падает\s+)?на\s+" + L),
        re.compile(
            r"(?:и\s+)?" + L + r"\s+(?:[а-я]+\s+){0,2}(?:кажутся|кажется|выглядит|выглядят)\s+(?:[а-я]+\s+)?"
            r"(?:черн[а-я]*|подозрительн[а-я]*|мафией|мафиози|доном)"
        ),
        re.compile(S + r"\s+(?:я\s+)?доверяю меньше"),
        re.compile(L + r"\s*(?:—|это)\s*(?:мой|мои|наш)\s+(?:главн[а-я]+\s+|основн[а-я]+\s+)?подозреваем[а-я]*"),
        re.compile(S + r"\s+похож\s+на\s+(?:мафию|черного|дона)"),
        re.compile(
            r"(?<!мы с )"
            + S
            + r"\s+(?:для меня\s+|точно\s+|явно\s+)*(?:—\s*)?(?:черный|мафия|мафиози|дон|подозрител[а-я]*|фейк|"
            r"лжец|врет|лжет)(?![а-я])"
        ),
        re.compile(S + r"\s+(?:[а-я]+\s+){0,2}не (?:доверяю|верю)"),
        re.compile(r"(?<![а-я])не доверяю\s+" + S),
        re.compile(r"(?<![а-я])не верьте\s+" + S),
    ),
    TEAMMATE: (
        re.compile(
            r"\bour\s+(?:guy|man|boy|girl|person)\s*(?:is|:|—)\s*" + S + r"|(?<![а-я])наш[а-я]*\s+(?:человек|парень|"
            r"девушка)\s*(?:—|:|это)?\s*" + S
        ),
        re.compile(
            r"\b(?:me and\s+" + S + r"|" + S + r"\s+and me)\s+are\s+(?:the\s+|both\s+)?(?:mafia|black|a team)\b"
        ),
        re.compile(
            r"(?<![а-я])мы\s+с\s+" + S + r"\s+(?:в\s+одной\s+команде|в\s+команде|заодно|вместе)|"
            r"(?<![а-я])я\s+и\s+" + S + r"\s*(?:—|,)?\s*(?:мафия|черные|команда)"
        ),
        re.compile(
            r"\b(?:my|our)\s+(?:team\s*mates?|partners?|allies|ally|accomplices?|fellow (?:mafia|mafioso)|don)"
            r"\s*(?:were|are|is|was|:|—)?\s*" + L
        ),
        re.compile(
            L + r"\s+(?:is|was|are|were)\s+(?:my|our)\s+(?:team\s*mates?|partners?|ally|allies|accomplices?|don)\b"
        ),
        re.compile(r"(?:^|[.!?,]\s*)(?:partner|напарник)\s+" + S),
        re.compile(
            r"(?<![а-я])(?:мо[йия]|наш[а-я]*)\s+(?:напарни[а-я]*|партнер[а-я]*|сообщни[а-я]*|тиммейт[а-я]*|"
            r"союзни[а-я]*|дон)\s*(?:—|:|,)?\s*(?:это\s+)?" + L
        ),
        re.compile(
            L + r"\s*(?:—|был[аи]?|это)?\s*(?:мо[а-я]+|наш[а-я]*)\s+(?:напарни|партнер|сообщни|тиммейт|союзни|"
            r"дон)"
        ),
        re.compile(r"\bmy\s+(?:team\s*mate|partner|fellow mafioso|fellow mafia|accomplice|ally)\b[^.¤]{0,12}" + S),
        re.compile(S + r"\s+is\s+my\s+ally\b|" + S + r"\s*—?\s*мой\s+союзник"),
        re.compile(S + r"\s+is\s+my\s+(?:team\s*mate|partner|accomplice)"),
        re.compile(S + r"[^.¤]{0,16}(?:,\s*my (?:team\s*mate|partner)|\bon our team|\bone of us)\b"),
        re.compile(S + r"[^.¤]{0,16}(?:,\s*мой (?:напарник|тиммейт|партнер)|из нашей команды|один из нас)"),
        re.compile(S + r"\s+and\s+i\s+are\s+(?:the\s+)?(?:mafia|black|a team|partners)"),
        re.compile(r"(?<![а-я])(?:мой|моя)\s+(?:напарни[а-я]*|тиммейт|партнер|сообщни[а-я]*)\s+" + S),
        re.compile(r"(?<![а-я])мы\s+с\s+(?:напарни[а-я]*|тиммейт[а-я]*|партнер[а-я]*)\s*[,—]?\s*" + S),
        re.compile(S + r"\s*(?:—\s*)?(?:мой|моя)\s+(?:напарни[а-я]*|тиммейт|партнер|сообщни[а-я]*)"),
        re.compile(r"(?<![а-я])мы\s+с\s+" + S + r"\s*—?\s*(?:мафия|черные|команда)"),
    ),
}
