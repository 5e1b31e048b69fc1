"""The constructions of a seat spoken of as out of the game ("seat 3 was killed", «убили пятого») and of a night's
target named ("we shoot 5 tonight", «ночью стреляем в девятого»), in English and Russian, over the normalised text
(`¤N` a seat, `¤Nᵃ` one in an object case). Each pattern's groups hold the seats it states."""

from __future__ import annotations

import re

from arena.research.speech_reader.seats import L, S
from arena.research.speech_reader.statement import DEAD, TARGET

# a death presupposed by a question about its author ("who shot 5?", «кто убил пятого?»): read even in a question
PRESUPPOSED = re.compile(
    r"\bwho\s+(?:shot|killed|lynched|voted out|eliminated)\s+(?:the\s+)?"
    + S
    + r"|(?<![а-я])кто\s+(?:убил|застрелил|отстрелил|выгнал|заголосовал|убрал)\s+"
    + S
)
PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    DEAD: (
        re.compile(r"\b(?:killed|shot|lynched|executed)\s+" + L + r"(?!\s+(?:tonight|at night))"),
        re.compile(L + r"\s+(?:got\s+|was\s+)?(?:night-?killed|nk'?d|flipped\s+(?:red|black|town|scum|mafia))"),
        re.compile(
            r"\b(?:took out|taken out)\s+" + L + r"(?!\s+tonight)|(?<![а-я])(?:мафия|они)\s+(?:[а-я]+\s+)?"
            r"(?:убрала|убрали|убила|убили)\s+" + L
        ),
        re.compile(L + r"\s+(?:is|are)\s+no longer with us|" + L + r"\s+(?:с нами\s+)?больше нет(?![а-я])"),
        re.compile(
            r"\bwe(?:'ve|\s+have)?\s+(?:already\s+)?lost\s+" + L + r"|(?<![а-я])мы\s+(?:уже\s+)?потеряли\s+" + L
        ),
        re.compile(
            r"¤(\d{1,2}+)ᵃ\s+(?:[а-я]+\s+){0,2}(?:убил|убила|застрелил|застрелила|отстрелил|отстрелила|отстрелял|"
            r"отстреляла)(?![а-я])"
        ),  # «четвёртого убил маньяк»: the seat is the object
        re.compile(r"(?<![а-я])(?:убили|отстреляли|потеряли|заголосовали|застрелили)[^.:¤]{0,20}:\s*" + L),
        re.compile(r"(?<![а-я])(?:убил[аи]?|застрелил[аи]?|отстрелял[аи]?|отстрелил[аи]?)\s+" + L),
        re.compile(r"\b(?:dead|gone|out|eliminated|killed|lost|died|shot)\b[^.:¤]{0,40}:\s*" + L),
        re.compile(r"\b(?:sad|sorry|a shame|a pity|hated|hate)\s+to\s+(?:see|lose)\s+" + S + r"(?:\s+(?:go|leave))?\b"),
        re.compile(
            L + r"\s+(?:was|were|got|has been|have been)\s+(?:lynched|executed|kicked(?: out)?|found dead)"
            r"|" + L + r"\s+(?:didn't|did not)\s+survive"
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+)?(?:погиб(?:ла|ли)?|вылетел[аи]?)(?![а-я])|"
            r"(?<![а-я])(?:погиб(?:ла|ли)?|вылетел[аи]?)\s+(?:[а-я]+\s+)?" + S
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+)?(?:выкинули|посадили|выбросили)(?![а-я])|"
            r"(?<![а-я])(?:выкинули|посадили|убитый|убитого)\s+(?:[а-я]+\s+)?" + S
        ),
        re.compile(L + r"\s+(?:is|are|was|were)\s+(?:already\s+)?out\b(?!\s+of\s+(?:line|mind|order))"),
        re.compile(
            r"\b(?:shot|killed|died|voted out|removed|eliminated)\s+(?:last night|yesterday|tonight|at night|"
            r"this morning|on night \w+)?\s*[:—]\s*" + L
        ),
        re.compile(r"(?<![а-я])(?:ушли|мертвы|выбыли|погибли|убиты)[^.:¤]{0,20}:\s*" + L),
        re.compile(
            r"(?:dead|died|killed|shot|убил|убит|застрел|отстрел|мертв|умер)[^.]*?"
            r"(?:\bit was|\bthat was|(?<![а-я])это был[а]?)\s+" + S
        ),
        re.compile(r"(?:dead|died|killed|shot)[^.]*?,\s*" + S + r"\s+was\s+(?:him|her)\b"),
        re.compile(L + r"\s+(?:[а-я]+\s+){0,2}(?:удалили|отстреляли|убрали|вынесли|выгнали|заголосовали)(?![а-я])"),
        re.compile(r"(?<![а-я])(?:удалили|отстреляли|вынесли)\s+(?:[а-я]+\s+){0,2}" + S),
        re.compile(
            L + r",?\s+(?:who\s+)?(?:was|got|has been|have been|were|is)\s+(?:killed|shot|voted out|eliminated|"
            r"removed)"
        ),
        re.compile(r"\bwe\s+lost\s+" + S),
        re.compile(r"\bvoted out\s+" + S),
        re.compile(r"(?<![а-я])заголосовал[а-я]*\s+" + S),
        re.compile(r"(?<![а-я])мы\s+потеряли\s+" + S),
        re.compile(S + r"\s+(?:killed|shot)\s+(?:at night|last night|tonight)"),
        re.compile(r"\bthe late\s+" + S),
        re.compile(
            L + r"\s+(?:is|are|has|have)?\s*(?:already\s+|now\s+)?(?:dead|died|gone|left us|left the game|"
            r"out of the game)\b"
        ),
        re.compile(S + r"\s+(?:died|left us|left the game)"),
        re.compile(
            S + r",?\s+(?:who|которого|которую|кого)\s+(?:was\s+|got\s+|вчера\s+|ночью\s+)?(?:\w+\s+)?"
            r"(?:killed|shot|voted out|lynched|eliminated|executed|removed|убили|"
            r"застрелили|заголосовали|выгнали)"
        ),
        re.compile(r"\b(?:rip|r\.i\.p\.?)\s+" + S),
        re.compile(r"\b(?:since|now that)\s+" + S + r"\s+is\s+(?:gone|dead|out)"),
        re.compile(
            L + r"\s+(?:уже\s+|теперь\s+)?(?:убит[а-я]*|мертв[а-я]*|умер|скончал[а-я]*|покинул[а-я]*|ушел|выбыл|"
            r"застрелен)"
        ),
        re.compile(r"(?<![а-я])(?:убили|застрелили|заголосовали|выгнали|отстрелили)\s+(?:[а-я]+\s+){0,2}" + S),
        re.compile(L + r"\s+(?:[а-я]+\s+){0,2}(?:убили|застрелили|заголосовали|выгнали|отстрелили)"),
        re.compile(r"(?<![а-я])(?:покойн[а-я]*|ушедш[а-я]*|погибш[а-я]*)\s+" + S),
        re.compile(r"(?=¤\d{1,2}+ᵃ)" + L + r"\s+(?:уже\s+|больше\s+)?нет(?![а-я])"),
        # generic constructions: a seat and a verb of removal in the past, in either order, adverbs between
        re.compile(
            L + r"\s+(?:(?:was|were|got|has been|have been|had been|just|already|finally|also|then|first)\s+)*"
            r"(?:shot|killed|voted out|eliminated|lynched|executed|removed|kicked(?: out)?|taken out|night-?killed|"
            r"murdered|hanged|hung|booted(?: out)?|thrown out|disqualified|whacked|offed|mislynched)\b"
            r"(?!\s+(?:tonight|at night|¤|the|our|my|a|an|him|her|them|me|us|you|his|their|everyone|anyone)\b)"
        ),
        re.compile(
            r"\b(?:voted out|eliminated|removed|kicked out|threw out|mislynched|buried|mourn|lost)\s+(?:the\s+)?"
            + L
            + r"(?!\s+(?:tonight|at night)\b)"
        ),
        re.compile(
            r"\b(?:rest in peace|may he rest|may she rest|farewell|goodbye|bye)\s*,?\s*(?:to\s+)?"
            + L
            + r"|"
            + L
            + r"\s*,?\s*(?:rest in peace|may (?:he|she) rest|rip)\b"
        ),
        re.compile(
            L
            + r"\s+(?:is|are)\s+no more\b|"
            + L
            + r"\s+(?:didn't|did not)\s+make it\b|"
            + L
            + r"\s+(?:is|are|was|were)\s+(?:already\s+)?(?:out|gone|dead)\b(?!\s+of\s+(?:line|mind|order))"
        ),
        re.compile(
            r"\b(?:death|loss|elimination|lynch|lynching|killing|shooting|exit|departure)\s+of\s+"
            + L
            + r"|"
            + S
            + r"'s\s+(?:death|elimination|lynch|exit|departure)"
            + r"|\b(?:with|without|since|after|now that)\s+"
            + L
            + r"\s+(?:out|gone|dead)\b(?!\s+of\s+(?:line|mind))"
        ),
        re.compile(r"\b(?:shooting|killing|lynching|voting out|eliminating)\s+" + L + r"\s+was\b"),
        re.compile(
            r"\bthe\s+(?:late|dead|deceased|departed|fallen|killed|murdered|eliminated|lynched)\s+(?:one\s*,?\s*)?" + S
        ),
        re.compile(  # «убит четвёртый», «заголосован седьмой»: a short passive participle, either side of the seat
            r"(?<![а-я])(?:убит|убита|застрелен|застрелена|заголосован|заголосована|выгнан|выгнана|удален|удалена|"
            r"снят|снята|отстрелен|отстрелена|казнен|казнена|повешен|повешена)\s+"
            + L
            + r"|"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:убит|убита|застрелен|застрелена|заголосован|заголосована|выгнан|выгнана|"
            r"удален|удалена|снят|снята|отстрелен|отстрелена|казнен|казнена|повешен|повешена)(?![а-я])"
        ),
        re.compile(  # «пятого снял ведущий», «сняли пятого», «слили девятого»
            r"¤(\d{1,2}+)ᵃ\s+(?:[а-я]+\s+){0,2}(?:снял[аи]?|казнили|повесили|слили|похоронили|выбили)(?![а-я])"
            r"|(?<![а-я])(?:сняли|снял[а]?|казнили|повесили|слили|похоронили|выбили|потеряли|убрали)\s+"
            r"(?:[а-я]+\s+){0,2}?¤(\d{1,2}+)ᵃ"
        ),
        re.compile(  # «ночью ушёл девятый», «погиб седьмой»: the verb before its subject
            r"(?<![а-я])(?:ушел|ушла|умер|умерла|погиб|погибла|выбыл|выбыла|вылетел|вылетела|помер)\s+"
            r"(?:[а-я]+\s+){0,2}?¤(\d{1,2}+)(?!ᵃ)"
        ),
        re.compile(
            r"(?<![а-я])(?:царство небесное|светлая память|вечная память|земля (?:ему |ей )?пухом|покойся с миром|"
            r"помянем)[^.¤]{0,12}" + L + r"|" + L + r"[^.¤]{0,12}(?:царство небесное|светлая память|вечная память|"
            r"земля (?:ему |ей )?пухом|покойся с миром)"
        ),
        re.compile(r"(?<![а-я])(?:с уходом|после ухода|после смерти|после гибели|смерть|гибель|уход)\s+¤(\d{1,2}+)ᵃ"),
        re.compile(
            r"¤(\d{1,2}+)ᵃ?\s*(?:—\s*)?(?:уже\s+)?труп(?![а-я])|(?<![а-я])минус\s+¤(\d{1,2}+)(?!ᵃ)\s*(?:[,.!—]|$)"
        ),
        re.compile(
            r"(?<![а-я])(?:мафия|они|черные|дон)\s+(?:[а-я]+\s+)?(?:выбила|выбили|застрелила|застрелили|отстреляла|"
            r"отстреляли|забрала|забрали|вынесла|вынесли|убрала|убила)\s+"
            + L
            + r"|\b(?:mafia|they|the blacks|the don)\s+(?:\w+\s+)?"
            r"(?:hit|got|took out|whacked|shot|killed|offed|took)\s+"
            r"(?:the\s+)?" + L + r"\s+(?:last night|yesterday|overnight|on night|in the night)"
        ),
        re.compile(  # "number 2 died on night one, number 9 on night two": the verb said once
            r"(?:\b(?:died|killed|shot|lynched|voted out|eliminated)\b|(?<![а-я])(?:умер[а-я]*|убит[а-я]*|убили|"
            r"заголосовали|погиб[а-я]*|застрелили|отстреляли|выгнали)(?![а-я]))[^.;]*?,\s*"
            r"(?:and\s+|then\s+|и\s+|а\s+|потом\s+)?"
            + S
            + r"\s*(?:—\s*)?(?:(?:on|in|в|во)\s+(?:the\s+)?(?:night|day|first|"
            r"second|third|next|перв|втор|трет|четв|след|ноч|ден|круг|¤\d)|"
            r"(?:overnight|yesterday|last night|this morning|"
            r"ночью|вчера|утром|днем)\s*(?:[.,;!]|$))"
        ),
        re.compile(
            r"\b(?:woke up|wake up|are|we're|left)\s+without\s+"
            + L
            + r"|(?<![а-я])(?:проснулись|остались|просыпаемся)\s+(?:[а-я]+\s+)?без\s+"
            + L
            + r"|(?<![а-я])(?:ведущий|судья)\s+(?:[а-я]+\s+)?(?:удалил|снял|дисквалифицировал|выгнал)\s+"
            + L
        ),
    ),
    TARGET: (
        re.compile(
            r"\b(?:kill|shoot|take out)\b[^.¤]{0,30}\btonight\b[^.¤]{0,6}(?:that's|that is|i\.e\.|—)\s*"
            + S
            + r"|(?<![а-я])ночью\s+(?:мы\s+)?(?:стреляем|убираем|уберем|убьем|валим)\s+(?:в\s+)?[^.¤]{0,20}"
            r"(?:это|т\.е\.|—)\s*" + S
        ),
        re.compile(r"(?<![а-я])(?:стреляем|отстреливаем|отстреляем|стрельнем|валим|завалим)\s+(?:в\s+|по\s+)?" + S),
        re.compile(r"(?:^|[.!?,;]\s*)(?:shoot|kill)\s+(?:the\s+)?" + S + r"\s+(?:tonight|at night)"),
        re.compile(
            r"\b(?:tonight|tonight's|at night)\b[^.¤]{0,25}?\b(?:shoot|kill|take out|go for|go after|hit)\s+"
            r"(?:the\s+)?" + S
        ),
        re.compile(
            r"\b(?:let's|we(?:'ll| will)?)\s+(?:shoot|kill|take out|go for|go after|hit|eliminate|remove|get rid of|"
            r"finish off)\s+(?:the\s+)?" + S + r"\s+(?:tonight|at night)"
        ),
        re.compile(r"\b(?:tonight's|night|our)?\s*target\s*(?:tonight|for tonight)?\s*(?:is|:|—)\s*" + S),
        re.compile(
            r"(?<![а-я])(?:сегодня|ночью|этой ночью)\s+(?:ночью\s+)?(?:мы\s+)?(?:стреляем|отстреливаем|отстреляем|"
            r"стрельнем|валим|завалим|убьем|убиваем|идем в|идем на|пойдем в|пойдем на|пойдем за)\s+" + S
        ),
        # "remove" is the day's vote too: a target when said of the night or to a partner
        re.compile(r"(?<![а-я])(?:сегодня\s+)?ночью\s+(?:мы\s+)?(?:убираем|уберем)\s+" + S),
        re.compile(r"(?<![а-я])(?:сегодня\s+)?(?:убираем|уберем)\s+" + S + r"(?=[^.]*напарни)"),
        re.compile(r"(?<![а-я])давай(?:те)?\s+(?:сегодня\s+)?ночью\s+(?:[а-я]+\s+)?" + S),
        re.compile(r"\bwe(?:'ll| will)?\s+(?:shoot|kill|take out)\s+" + S + r"\s+tonight"),
        re.compile(
            r"\btonight\b[^.¤]{0,12}" + S + r"\s+(?:is going down|goes|dies|will die|is dead|leaves|"
            r"(?:must|should|has to|needs to|will) (?:die|go))"
        ),
        re.compile(
            r"(?<![а-я])(?:сегодня\s+|этой\s+)?ночью\s+" + S + r"\s+(?:должен|должна|обязан)\s+(?:умереть|уйти)"
        ),
        re.compile(r"(?<![а-я])(?:этой|сегодня)\s+ночью[^.¤]{0,12}" + S + r"\s+(?:уходит|уйдет|умрет|погибнет)"),
        re.compile(r"(?<![а-я])(?:этой|сегодня)\s+ночью\s+(?:мы\s+)?(?:убираем|уберем|стреляем|убьем|убиваем)\s+" + S),
        re.compile(r"\btonight\s+(?:we|they|the mafia)(?:'ll| will)?\s+(?:shoot|kill|take out|go after)\s+" + S),
        re.compile(
            r"\b(?:mafia|they|we)\s+(?:will\s+|'ll\s+)?(?:probably\s+|likely\s+)?"
            r"(?:try to\s+|want to\s+|going to\s+|gonna\s+)?"
            r"(?:go after|shoot|kill|come for)\s+" + S + r"\s+tonight"
        ),
        re.compile(r"\btonight\s+" + S + r"\s+(?:dies|will die|is dead)"),
        re.compile(S + r"\s+(?:dies|will die)\s+tonight"),
        re.compile(r"\b(?:our\s+)?target\s+(?:tonight\s+|for tonight\s+)?is\s+" + S),
        re.compile(r"\bwe\s+shoot\s+" + S),
        re.compile(
            r"(?<![а-я])(?:ночью|сегодня ночью|этой ночью)\s+(?:мы\s+)?(?:стреляем|убьем|убиваем|отстреляем)\s+" + S
        ),
        re.compile(r"(?<![а-я])(?:стреляем|убьем)\s+" + S + r"\s+(?:этой\s+|сегодня\s+)?ночью"),
        re.compile(r"(?<![а-я])(?:этой ночью|ночью|сегодня ночью)\s+(?:умрет|умирает|уходит)\s+" + S),
        re.compile(r"\blet'?s\s+(?:shoot|kill)\s+" + S),
        re.compile(r"(?<![а-я])давай(?:те)?\s+(?:[а-я]+\s+){0,3}?(?:застрелим|убьем|пристрелим|отстреляем)\s+" + S),
        re.compile(S + r"\s+умрет\s+(?:этой|сегодня)\s+ночью"),
        re.compile(
            r"(?<![а-я])(?:мафия|мы|они)\s+(?:[а-я]+\s+){0,3}(?:пойдет|пойдем|придет|придут|пойдут)\s+за\s+" + S
        ),
        re.compile(r"(?<![а-я])цель\s+(?:этой ночью|на ночь|сегодня|на эту ночь)?\s*—?\s*" + S),
        re.compile(
            r"\btake\s+"
            + S
            + r"\s+out\b(?=[^.!?]*\b(?:tonight|at night)\b)"
            + r"|\b(?:tonight|at night)\b,?\s+(?:we|let's|i)(?:'ll| will)?\s+(?!check|heal|save|protect|vote|see|watch|"
            r"look|wait|hear|listen|talk|decide|think)[a-z]+(?:\s+(?:off|out|down|up))?\s+(?:the\s+)?"
            + S
            + r"|(?<![а-я])(?:этой ночью|сегодня ночью|ночью)\s+(?:мы\s+)?"
            r"(?!провер|лечи|спаса|смотр|голос|жд|дума|узна)"
            r"[а-я]+(?:ем|им)\s+(?:в\s+|по\s+|на\s+)?"
            + S
            + r"|(?<![а-я])(?:убери|убей|вали|грохни|стрельни|пристрели|застрели|добей|добиваем|добьем|кончай|"
            r"кончаем)\s+"
            r"(?:[а-я]+\s+)?" + S + r"(?=[^.!?]*(?:ноч|напарни|дон(?![а-я])))"
        ),
        re.compile(
            r"(?<![а-я])(?:мафия|они|черные|дон)(?![а-я])[^.]{0,30}?(?:застрелить|убить|стрелять|отстрелить|убрать|пойдет|"
            r"придет|придут|пойдут)\s+(?:в\s+|за\s+)?" + S + r"(?=[^.]*ноч)"
        ),
        re.compile(  # "Tonight, partner, it's seat 3.", «Этой ночью, напарник, третий.»
            r"(?<!check )(?<!heal )(?<!save )(?<!protect )\btonight\s*,?\s*(?:(?:partner|don)\s*,\s*)?"
            r"(?:[:—]\s*|it's\s+|it is\s+)?"
            + S
            + r"\s*(?:[.!]|$)"
            + r"|(?<![а-я])(?:этой|сегодня)\s+ночью\s*,?\s*(?:(?:напарник|дон)\s*,\s*)?(?:—\s*)?"
            + S
            + r"\s*(?:[.!]|$)"
            + r"|(?<![а-я])(?:идем|стреляем|убираем|валим|бьем)\s+(?:в\s+|по\s+)?"
            r"(?:шериф[а-я]*|доктор[а-я]*|комиссар[а-я]*)"
            r"\s*(?:сегодня\s+|ночью\s+)?,?\s*(?:—\s*)?(?:это\s+|он\s+|она\s+)?"
            + S
            + r"|\b(?:shoot|kill|hit|take|whack|go for)\s+the\s+(?:sheriff|doctor|commissar|cop|doc)\s+(?:out\s+)?"
            r"(?:tonight\s*)?[,—]\s*(?:he's|she's|it's|that's|he is|she is)\s+" + S
        ),
        re.compile(  # «ночью бей его»: an imperative to a partner, the night or the partner named before it
            r"(?<![а-я])(?:ноч[а-я]*|напарни[а-я]*)[^.!?]*?(?<![а-я])(?:бей|убей|вали|грохни|стреляй|стрельни|мочи|убери)\s+"
            r"(?:в\s+)?" + S
        ),
        # generic constructions: the speaker's side shoots a seat (a verb of the night's shot in the present, the
        # future or the imperative, or the shot as a noun); a verb also said of the day's vote only with "tonight"
        re.compile(
            r"\b(?:let's|let us|we(?:'ll| will| should| must| gotta|'re gonna| are going to)?|i(?:'ll| will)?|"
            r"i'm gonna|i'm going to)\s+(?:shoot|kill|whack|knock off|pop|off)\s+(?:the\s+)?"
            + S
            + r"|(?:^|[.!?,;:—]\s*)(?:shoot|kill|whack|hit|take out|go for|shooting|killing|whacking)\s+(?:the\s+)?"
            + S
            + r"(?=[^.!?]*\b(?:tonight|at night|partner|don)\b)"
        ),
        re.compile(
            r"\b(?:let's|we(?:'ll| will| should| must)?|i(?:'m| am)?\s+(?:going|gonna)?|i(?:'ll| will)?)\s*"
            r"(?:hit|take out|go for|go after|going after|going for|take down|hitting|taking out)\s+(?:the\s+)?"
            + S
            + r"(?=[^.!?]*\b(?:tonight|at night)\b)"
            + r"|\b(?:tonight|at night)\b[^.!?¤]{0,30}\b(?:hit|take out|go for|go after|going after|whack|take down)\s+"
            r"(?:the\s+)?" + S
        ),
        re.compile(
            r"\b(?:our|the|tonight's|night|my|the night's)\s+(?:shot|kill|hit|target|pick)\s+"
            r"(?:tonight\s+|for tonight\s+)?"
            r"(?:is|goes to|goes on|will be|:|—|=|on)\s+(?:the\s+)?" + S
        ),
        re.compile(
            r"(?<!check )(?<!heal )(?<!save )\btonight\s*(?:[:—]|it's|it is|we take|we shoot)\s*"
            + S
            + r"(?!\s*(?:'s|is|will|checks?|heals?)\b)"
            + r"|"
            + S
            + r"\s+it is,?\s+tonight\b|"
            + S
            + r"\s+(?:it is|it's)\s+tonight\b"
        ),
        re.compile(
            r"(?:^|[.!?]\s*)(?:shoot|kill|whack|take out)\s+(?:the\s+)?(?:sheriff|doctor|commissar|cop|doc)\s*[—,:]\s*"
            r"(?:he's|she's|that's|it's|he is|she is|that is)?\s*" + S
        ),
        re.compile(
            r"(?<![а-я])(?:бьем|мочим|грохнем|выносим|стреляй|стрельни|пальнем|уберем|убираем|отстреливаем|кончаем)\s+"
            r"(?:в\s+|по\s+)?(?:[а-я]+\s+)?"
            + S
            + r"(?=[^.!?]*(?:ноч|напарни|дон(?![а-я])))"
            + r"|(?<![а-я])(?:бьем|мочим|грохнем|пальнем|стреляй|стрельни)\s+(?:в\s+|по\s+)"
            + S
        ),
        re.compile(
            r"(?<![а-я])(?:наш\s+|ночной\s+)?(?:выстрел|отстрел|цель)\s*"
            r"(?:этой ночью|сегодня|на ночь|сегодня ночью)?\s*"
            r"(?:—|:|это)\s*(?:в\s+|на\s+)?" + S
        ),
        re.compile(
            r"(?<![а-я])(?:иду|идем|пойду|пойдем|идти)\s+(?:ночью\s+|сегодня\s+|этой ночью\s+)?(?:за|в|на)\s+"
            + S
            + r"(?=[^.!?]*ноч)|(?<![а-я])ночью\s+(?:[а-я]+\s+)?(?:иду|идем|пойду|пойдем)\s+(?:за|в|на)\s+"
            + S
        ),
        re.compile(
            r"(?<![а-я])(?:этой|сегодня)\s+ночью\s*(?:—\s*)?"
            + S
            + r"\s*(?:[.!]|$)"
            + r"|(?<![а-я])(?:предлагаю|давай|давайте)\s+(?:[а-я]+\s+)?(?:ночью|этой ночью|сегодня ночью)\s+"
            r"(?:[а-я]+\s+)?"
            + S
            + r"|(?<![а-я])давай(?:те)?\s+(?:[а-я]+\s+){0,2}?(?:стрельнем|грохнем|завалим|шлепнем|хлопнем)\s+"
            + S
        ),
    ),
}
