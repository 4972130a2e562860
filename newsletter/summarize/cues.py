"""Cue words that tell what kind of part a heading opens, in the languages posts come in.

They are the second signal: the structure of the post (what sits under a heading, where it
stands) decides first, and these only name parts that structure cannot tell apart, such as
a closing "Thanks" among features, or an "Example" under one.
"""

from __future__ import annotations

import re
import unicodedata

from newsletter import lazy_re

# A project's name: one word in Latin script with a capital ("Lumen", "Lumen.js", "C++").
_NAME = r"(?-i:[A-Z])[A-Za-z0-9.+#-]*"

# Parts that close a release post rather than announce a change.
CLOSING = lazy_re.compile(
    r"(?:thanks|thank you|(?:\w+\s+)?shout-?outs?|acknowledge?ments?|credits|"
    r"(?:header |cover |featured )?(?:image|photo)s? credits|(?:new )?contributors|authors|sponsors?|"
    r"(?:full |detailed )?(?:changelogs?|release notes)(?:\s+since\b.*)?|resolved (?:tickets|issues|bugs)$|"
    r"get(?:ting)? started|get involved|build setup$|"
    # Asking readers to join or fund the project: "Come join us", "Support Lumen", "Apoye a Lumen".
    r"(?:come )?join (?:us|the community|our community)|(?:a )?call for support|donat(?:e|ions?)|"
    # Inviting to try the release: "Try it!", "Try it out".
    r"try it(?: out| now)?(?=!?$)|"
    # Signing off: "That's it!", "That's all for now".
    r"that['’]?s (?:it|all)(?: for (?:now|today|this (?:release|time)))?(?=[.!]?$)|"
    # Arabic: upgrading, installing, thanks; Slovak thanks.
    r"الترقية|التثبيت|(?:ال)?شكر\w*|poďakovanie|ďakujeme|vďaka|"
    r"(?:support|apoy[ae] a|unterstützen sie|soutenez)\s+(?:us|the project|" + _NAME + r")$|"
    # Getting the release ("Download", "Get it now", "Get the release", "Get Lumen Core 2.1"), not
    # news of a downloader.
    r"(?:download(?:ing)?|get(?:ting)?)(?:\s+(?:it|the (?:release|update)|(?:\S+\s+){0,2}v?\d[\w.]*))?"
    r"(?:\s+now|\s+today)?$|"
    r"(?:\S+\s+v?\d[\w.]*\s+)?erhalten$|"
    # The release's name before where to get it and what to tell: "Lumen 2.1 download & feedback".
    r"(?:\S+\s+){1,3}v?\d[\w.]*\s+downloads?(?:\s+(?:&|and)\s+(?:feedback|support|installation))?$|"
    # "Baixar o Lumen", "Descargar Lumen Core": the verb, then the project's name.
    r"(?:baixar|descargar|scaricare)\s+(?:(?:o|a|el|la|il|lo)\s+)?\S+(?:\s+\S+)?$|"
    # A move to a version is the upgrade; one to anything else ("Migration to the new
    # solver begins") is a change the release makes.
    r"install(?:ation|ing)?|upgrad(?:e|ing)|migrat(?:e|ing|ion)(?!\s+to\s+(?![^\n]*(?:\d|version|release)))|"
    r"how to (?:install|upgrade|get)|"
    # A conclusion, maybe the author's own ("Minha conclusão", "Mi conclusión", "My conclusions").
    r"(?:(?:in|en|em|my|minha|mi|ma|mia|le mie|les meves)\s+)?conclus(?:ioni|ions?|ão|ões|ión|iones|ione)|"
    # The next release, as the last word: "Prochaine version", "Next release".
    r"(?:next(?: release| version)?|prochaine version|próxima versão|próxima versión|prossima versione)$|"
    r"wrapping up|(?:closing|final|some final) (?:thoughts|words|remarks)|"
    r"what['’]?s next|coming (?:up|soon|next)$|next steps|future work|roadmap|feedback|"
    r"leave (?:us |your )?feedback|call to action|subscribe\b.*|learn more|more about|contribut(?:e|ing)$|"
    # Learning more, the release notes elsewhere, a tutorial's exercises, in a few languages.
    r"para saber m[aá]i?s|pour en savoir plus|per saperne di più|mehr erfahren|"
    r"note di rilascio|notas de (?:la )?versi[oó]n|notas de lançamento|notes de version|versionshinweise|"
    r"(?:exercises|exercícios|ejercicios|exercices|übungen|esercizi)$|"
    # Whole: "Resources in content adapters" is news.
    r"(?:resources|references)$|"
    r"further reading|danksagung(?:en)?|danke?|(?:(?:unser|mein) )?fazit|ausblick|mitmachen|erste schritte|"
    r"herunterladen|remerciements|"
    r"merci|pour commencer|télécharge(?:r|ments?)|comment (?:mettre à jour|installer|migrer)|"
    r"c[oó]mo (?:actualizar|instalar|compilar)|how to build$|"
    # Building it from source, installing it, getting it: en, ru, it, de, fr ("Obtenir Lumen 2").
    r"building(?: from sources?)?$|сборка$|installazione$|(?:\S+\s+){0,2}installieren$|"
    r"obtenir\s+" + _NAME + r"(?:\s+v?\d[\w.]*)?$|"
    r"prochaines étapes|agradecimientos|gracias|conclusión|instalación|próximos pasos|descargas?$|ringraziamenti|"
    r"agradecimentos|благодарности|спасибо|заключение|установка|скачать|"
    # Dutch, Polish, Vietnamese, Italian; where to ask; getting the project ("Get Lumen").
    r"bedankt|dankwoord|upgraden|podziękowania|jak zaktualizować|lời cảm ơn|cảm ơn|nâng cấp|come aggiornare|"
    # Italian, Catalan, Bulgarian: updating, thanks, next steps.
    r"aggiornare$|aggiornamento$|grazie|gràcies|надграждане|обновяване$|"
    r"как да обновите|благодарност\w*|следващи стъпки|"
    # "Updating" as a closing part's whole name, and thanks, in more languages.
    r"mise à jour$|actualización$|atualização$|atualizando$|actualizando$|aktualisierung$|aktualizacja$|"
    r"aktualizácia$|bijwerken$|"
    r"güncelleme$|päivitys$|uppdatering$|opdatering$|oppdatering$|nadogradnja$|cập nhật$|pembaruan$|"
    r"actualizare$|обновление$|obrigad[oa]|dankjewel|zahvale|special thanks|"
    # Turkish, Indonesian, Swedish, Czech, Ukrainian: updating, thanks, closing words.
    r"nasıl yükseltilir|yükseltme|teşekkürler|katkıda bulunanlar$|katkı sağlayanlar$|"
    r"cara memperbarui|terima kasih|penutup|kontributor(?: baru)?$|"
    r"uppgradera|uppgradering|tack|nästa steg|"
    # Danish and Norwegian, Catalan, Portuguese: upgrading or updating, thanks.
    r"opgradering|oppgradering|(?:sådan|slik|så)\s+(?:opgraderer|oppgraderer|uppgraderar|installerer|installerar|"
    r"opdaterer|oppdaterer|uppdaterar)"
    r"\s+(?:du|man)|tak$|takk$|"
    # Scandinavian: the author's conclusion.
    r"(?:min |mi |vår |vores )?(?:slutsats|konklusion|konklusjon)(?:er)?$|"
    # How to move a project to the release, in Portuguese and Spanish: "Como migrar", "Cómo migrar".
    r"actualització$|com actualitzar|agraïments|c[oó]mo (?:atualizar|instalar|migrar)|"
    # Exercises for the reader, where to learn more, a migration, the author's view, other
    # news and where to download it: ca, pt, bg, bn, es.
    r"exercicis$|per saber-ne més|saiba mais|миграция\b.*|мигриране\b.*|আমার মতামত|"
    # Going further, supporting the project: fr, es, bg.
    r"pour aller plus loin|para ir más lejos|подкрепете ни|"
    # Upgrading (fr, ru), going further (it), the author's verdict, the newsletter's blog posts.
    r"mise à niveau$|как обновиться|per approfondire|(?:il mio|mon|mi|my) (?:verdetto|verdict|veredicto)$|"
    r"on the blog$|"
    r"altres notícies|otras noticias|outras notícias|on baixar-ho|dónde descargar(?:lo)?|onde baixar|"
    r"jak aktualizovat|aktualizace$|poděkování|závěr|stažení$|ke stažení$|"
    r"оновлення$|як оновити|подяки|дякуємо|висновки|"
    r"additional information|more information|documentation$|(?:all )?(?:resolved|closed) issues$|"
    r"(?:helpful|useful) links\b.*|"
    # Hungarian, Finnish, Romanian, Greek, Hebrew, Thai; French's bare "update".
    r"köszönet\w*|letöltés|telepítés|frissítés$|kiitokset|kiitos|päivittäminen|asennus|lataa$|mulțumiri|"
    r"cum (?:actualizezi|instalezi)|descărcare|ευχαριστ\w*|αναβάθμιση|εγκατάσταση|λήψη$|mettre à jour$|"
    # Inviting readers to take part: pt, es, fr ("Participe", "Participa", "Participez").
    r"(?:como )?participa(?:r)?$|participez$|participe$|"
    r"get(?:ting)? help\b.*|get(?:ting)?\s+" + _NAME + r"$)\b"
    r"|致谢|感谢|鸣谢|結語|结语|结论|安装|下载(?:地址|链接|[与和及]安装|\s*\S+\s+\d[\w.]*)?$|(?:新)?(?:贡献者|貢獻者)$|入门|快速开始|"
    r"(?:今すぐ)?(?:始め|はじめ)(?:ましょう|よう)|(?:지금 )?시작하기|의견 보내기|다음 단계|ロードマップ|路线图|로드맵|"
    # Korean: the plans for what comes next ("다음 계획", "향후 계획").
    r"(?:다음|향후|앞으로의) 계획|"
    r"下一步|接下来|謝辞|感謝|おわりに|さいごに|最後に|写在最后|インストール|入手方法|今後|"
    r"감사|마치며|설치|연습 문제|참고 자료|"
    r"アップデート(?:方法)?$|更新方法$|업데이트(?: 방법)?$|업그레이드(?:\s?(?:안내|방법|하기))?$|"
    # Korean: those who contributed ("기여해 주신 분들"), contributors.
    r"기여해\s?주신\s?분들|기여자(?:들)?$|"
    r"תודות|תודה|הורדה|התקנה|שדרוג|ขอบคุณ|(?:การ)?อัปเกรด|(?:การ)?ติดตั้ง|ดาวน์โหลด|"
    # Traditional Chinese; Persian: thanks, getting and updating the release.
    r"致謝|鳴謝|結論|安裝|下載(?:地址|連結|[與和及]安裝)?$|"
    # An afterword, maybe the translator's: "译者后记", "譯者後記", "あとがき".
    r"(?:译者|譯者|訳者)?(?:后记|後記|あとがき)$|سپاسگزاری|قدردانی|تشکر|دریافت(?:\s+و\s+به\u200cروزرسانی)?$|"
    # Hindi: thanks, upgrading, installing.
    r"धन्यवाद|आभार|(?:अपग्रेड|इंस्टॉल) कैसे करें|अपग्रेड करें$|इंस्टॉलेशन$|"
    # Bengali: thanks, how to upgrade or install.
    r"ধন্যবাদ|কৃতজ্ঞতা|কীভাবে (?:আপগ্রেড|আপডেট|ইনস্টল) করবেন|(?:আপগ্রেড|আপডেট|ইনস্টল) করবেন কীভাবে|"
    # Malay; Serbian in Cyrillic: upgrading, thanks.
    r"(?:cara )?menaik taraf|naik taraf$|надоградња$|захвалност|хвала$|"
    # Serbian, Portuguese, Italian, Catalan, Bulgarian, Korean: upgrading, thanks, the
    # author's conclusion or opinion, what comes next, sponsoring; reporting bugs.
    r"како надоградити|захвалниц\w*|conclusão|conclusioni|conclusió|mon avis|my take|"
    r"minha opinião|mi opinión|la mia opinione|meine meinung|"
    r"какво следва\b.*|후원|report(?:ing)? (?:a )?bugs?$|"
    # A release page's assets; sponsors and donations; the author's view; a notebook's
    # wrap-up and exercises; a roundup's sign-off ("Until next month"), in a few languages.
    r"assets(?:\s+\d+)?$|"
    # A release page's line of its contributors' avatars: "ada, grace, and 3 other contributors".
    r"(?:[\w.-]+,\s+)+and \d+ other contributors$|"
    r"спонсор\w*|doaç(?:ão|ões)|donaci(?:ón|ones)|donazioni|मेरी राय|小结|小結|练习|練習|"
    r"until next (?:time|month|week)|fins (?:al mes que ve|la propera)|hasta el (?:próximo mes|mes que viene)|"
    r"see you (?:next|soon|in)\b.*|até (?:a|à) próxima|ci vediamo\b.*|à (?:la )?prochaine|bis zum nächsten mal|"
    r"hasta (?:la )?próxima|フィードバック|反馈|피드백|"
    # A roundup's look at next month; getting or updating the release, as a verb (es, de).
    r"next month$|prossimo mese$|mois prochain$|descargar$|aktualisieren$|actualizar$|atualizar$|"
    # Where and how to get it, a support part, the docs, thanks with a word before them
    # ("Community thank you"): ru, it, pl, ja; the docs and support in a few languages.
    r"где (?:скачать|загрузить)|(?:come|dove) (?:scaricare|installare)\b.*|instalacja(?:\s+i\s+aktualizacja)?$|"
    r"ダウンロード(?:・|と|及び|および)インストール$|(?:support|supporto|soporte|suporte|unterstützung)$|"
    r"(?:documentazione|documentación|documentação|dokumentation|dokumentacja|документация)$|"
    r"(?:[\w-]+\s+){1,2}(?:thanks|thank you)$|"
    # Credits as a line of their own ("Brought to you by"); donations (de).
    r"brought to you by\b.*|spenden$|"
    # Where the application keeps its files, as its notes close.
    r"file locations$|"
    # Readers' comments under the post.
    r"(?:comments|kommentare|commentaires|comentarios|comentários|commenti|komentarze|komentáře|diskuse|diskussion|"
    r"discussion|комментарии)$",
    re.IGNORECASE)

# Parts a big project's release post carries beside its news: who made it, where to get
# it, its numbers, its events, what the project is. Matched whole: "Availability of arm64
# images" is news.
BOILERPLATE = lazy_re.compile(
    r"(?:upcoming |the )?(?:release (?:team|theme(?: and logo)?|logo|schedule|cadence|managers?)|"
    # The project's numbers: "Stats", "Lumen community stats", "Release statistics".
    r"(?:" + _NAME + r" )?(?:community |project |release |contributor )?(?:stats|statistics)|"
    r"statistiques|estadísticas|estatísticas|statistiken|статистика|統計|统计|통계|"
    # Where and how to get the release: "Availability of Lumen 2.0 and where to ask", "Obtaining Lumen".
    r"availability(?: of .*)?|(?:obtaining|getting) " + _NAME + r"|"
    r"donat(?:e|ing|ions?)(?: to " + _NAME + r")?|"
    r"(?:project )?velocity|ecosystem(?: updates)?|events|"
    # Webinars, maybe beside the project's trainings: "Trainings and webinars".
    r"(?:\w+\s+(?:and|&|e|et|y|und)\s+)?(?:release )?webinars?|"
    # A blog page's readers' comments under the post, as a dump keeps them, counted: "3 comments",
    # "3 thoughts on "Lumen 2.0"", "One response to Lumen 2.0" (uncounted, they close it).
    r"\d+\s+(?:comments|kommentare|commentaires|comentarios|comentários|commenti|komentarze|komentáře|"
    r"комментари(?:ев|я|й))|"
    r"(?:\d+|one|no)\s+(?:thoughts?|comments?|responses?|replies|reply)\s+(?:on|to)\s+.+|"
    r"community(?: updates| spotlight)?|"
    # A newsletter's regular columns: "Art corner", "Community corner", reading for the week.
    r"(?:\w+\s)?corner|(?:da leggere|à lire|(?:what )?to read|lesenswert)(?:\s.*)?|"
    # The project's or company's other news beside the release: "Lumen news", "Team news".
    r"(?:company|team|project|" + _NAME + r") news|"
    # A site's advertisement box between a post's parts.
    r"advertisement|sponsored|reklama|anzeige|publicité|publicidad|реклама|"
    r"stay (?:tuned|in touch)|where to (?:get|download|find) it|where to download|"
    # Where to download it, maybe quickly or directly ("Quick downloads", "Descargas rápidas"),
    # and its manual: "Download and documentation".
    r"(?:(?:quick|direct)\s+)?downloads?(?:\s+(?:rápidos|diretos)|\s+(?:and|&)\s+(?:documentation|docs|installation))?|"
    r"descargas?(?:\s+(?:rápidas|directas))?|"
    r"téléchargements?(?:\s+(?:rapides|directs))?|(?:useful |related )?links|(?:new |our )?contributors|hackathons?|"
    # Who made it, however the post sorts them: "Docs and design contributors", "Core maintainers".
    r"(?:\w+ (?:and )?){1,3}(?:contributors|maintainers|committers)|numbers|"
    r"(?:community )?meetups?(?: and events)?|encontros da comunidade|"
    # What the release does not fix yet, and questions about it: not its news.
    r"known (?:issues|problems|bugs)(?: (?:affecting|in|with|for) .*)?|"
    # Said as a sentence: "This release contains bugs", "The release has known issues".
    r"(?:this|the) release (?:contains|has) (?:some )?(?:known )?(?:bugs|issues|problems)|"
    r"bekannte (?:probleme|fehler)|problèmes connus|problemas conocidos|faq|frequently asked questions|"
    r"problemi noti|problemas conhecidos|problemes coneguts|既知の問題|已知问题|已知問題|알려진 문제|"
    # How long each release is supported: a table of dates, not news.
    r"support[- ]?(?:zeiträume|zeitraum|periods?|lifecycles?|timelines?)|périodes? de support|"
    r"periodos? de soporte|períodos? de suporte|"
    # Notes to those who package the release, not news to its users; who made it, honoured.
    r"(?:notes )?for (?:distributors|packagers)|packaging(?: notes)?|hall of fame|"
    # The lists of a release's issues and pull requests, and of its API changes.
    r"(?:issues closed|(?:contributed |merged )?(?:pull requests|prs))(?: for v?\d[\w.]*)?|"
    r"(?:list of )?api changes)[.:!]?"
    r"|广告|広告|광고"
    # Who uses the project, as its adoption's numbers: "Who's using Lumen", "谁在使用 Lumen".
    r"|(?:who(?:['’]s| is)? using|who uses)\s+" + _NAME + r"\s?\??|(?:谁|誰)在(?:使用|用)\s?\S+|導入事例|採用事例"
    r"|社区|社区动态|下载|コミュニティ|ダウンロード|커뮤니티|다운로드|(?:новые )?участники|(?:встречи и )?мероприятия"
    # The project's description for newcomers, under a post's news: "About Lumen", "Lumen란".
    # The name is one capitalized word: "About dialogs" or "关于类型检查" may be news.
    # Or two: "About GNU Wren".
    r"|(?:(?:about|über|à propos de|acerca de|sobre)\s+|关于\s?)" + _NAME + r"(?:\s" + _NAME + r")?|"
    # Or asked: "What is Lumen?", "Qu'est-ce que Lumen ?", "¿Qué es Lumen?", "Was ist Lumen?".
    r"¿?(?:what is|what's|qu'est-ce que|qué es|was ist|che cos'è|cos'è|o que é|что такое)\s+" + _NAME + r"\s?\?|"
    + _NAME + r"\s?(?:とは|(?:이)?란)",
    re.IGNORECASE)

# Steps to move to the release, wherever they stand: "Upgrade to 9.2", "Upgrading from
# 1.x", "Install 1.9.20", "Migrating from v4", "Porting to 3.13", a bare "Update".
MOVING_TO_RELEASE = lazy_re.compile(
    r"(?:upgrad(?:e|ing)|updat(?:e|ing)|migrat(?:e|ing)|install(?:ing)?)\b.*?(?:\b(?:to|from)\b|\d+\.\d+)"
    r"|(?:updat|upgrad)(?:e|ing)$|port(?:ing)? to\b.*\d+\.\d+"
    # What to read first, and the guide to follow: "Read Before Upgrading", "Upgrade Guide".
    r"|(?:read )?before (?:you )?(?:upgrad|updat)(?:e|ing)$|(?:upgrade|update|migration) guide$"
    # The same steps in French, Spanish, Portuguese, Italian, German: "Mettre à jour vers 24.04".
    r"|(?:mettre à jour|mise à jour|migrer|actualizar|atualizar|aggiornare|aktualisieren)\s+"
    r"(?:vers|a|para|alla?|auf)\b.*"
    # German: "Update auf Lumen 5.3", "Umstieg auf 5.x", or a bare major number ("Update auf
    # Lumen 19", as "Upgrade to Lumen 19" is).
    r"|(?:update|upgrade|aktualisierung|umstieg|wechsel) auf\b.*\d"
    # Czech, Slovak, Polish: "Přechod z verze 5.x", "Aktualizacja do wersji 2".
    r"|(?:přechod|prechod|przejście|aktualizace|aktualizácia|aktualizacja)\s+(?:z|ze|na|do)\s+(?:verz|wersj|v?\d)"
    r"|.*(?:업그레이드|마이그레이션|升级|升級|迁移|遷移|アップグレード|移行)(?:\s*(?:방법|하기|指南|ガイド|가이드|方法|方法について|手順|步骤|步驟|時の注意|注意事項|"
    # The author's notes from upgrading: "升級心得".
    r"心得|"
    # What to know (before) upgrading: "升级说明", "升級前須知".
    r"시 주의(?:사항)?|时的注意事项|注意事项|前?(?:说明|說明|须知|須知)))?$",
    re.IGNORECASE)

# A move named for where it goes, in Japanese or Korean ("X への移行", "X로의 마이그레이션"):
# a move to a version or a release is the upgrade, to anything else (a library, an API)
# a change the release makes, as "Migration to the new plugin API" is.
_MOVE_TARGET = lazy_re.compile(r"(.+?)\s*(?:への|(?:으)?로의)\s*(?:移行|마이그레이션)")
_RELEASE_WORD = lazy_re.compile(r"\d|バージョン|リリース|版|버전|릴리스|릴리즈")
# An upgrade named for the parts of the program it upgrades ("核心组件升级", "依赖升级",
# "依存ライブラリのアップグレード"): the release's news, as "Dependency upgrades" is.
_UPGRADED_PARTS = lazy_re.compile(r".*(?:组件|組件|依赖|依賴|模块|模組|コンポーネント|依存|ライブラリ|"
                                  r"컴포넌트|의존성|라이브러리)\s*(?:の)?\s*(?:升级|升級|アップグレード|업그레이드)$")


def moves_to_release(heading: str) -> bool:
    """Whether a heading names the steps to move to the release ("Upgrading from 1.x")."""
    if not MOVING_TO_RELEASE.match(heading) or _UPGRADED_PARTS.match(heading):
        return False
    target = _MOVE_TARGET.fullmatch(heading)
    return target is None or _RELEASE_WORD.search(target.group(1)) is not None

# Asides inside a part: examples, explanations, caveats, the behaviour before and after.
# Matched at the start; the English words only as the whole heading or before a colon or
# a few linking words, so "Examples gallery" or "Important fix for X" stay news ("Example
# config file", in the singular, shows one).
ASIDE = lazy_re.compile(
    r"(?:(?:an? |the )?examples?(?: usage| code)?|(?:an? )?example\s.*|for example|usage|why\b.*|"
    r"how (?:to|do|does|it works)\b.*|"
    r"known (?:issues?|limitations?)|(?:current )?limitations|caveats?|notes?|important(?: notes?| information)?|"
    # A note named for what it is about: "Upgrade note", "Beta environment note".
    r"(?:[^\W\d_]+\s+){1,3}note|"
    r"(?:new|previous|old) behaviou?r|see also|demo|step\s*\d+|heads[- ]up|tips?|hints?|warning|caution|"
    # "(The) tip (of the month)": fr, ca, es, it.
    r"(?:le |un |el |il )?(?:conseil|consell|consejo|consiglio)(?: du mois| del mes| del mese)?|"
    r"beispiel|exemple|ejemplo|esempio|пример|"
    # Callout titles: "Let op" (nl), "Uwaga" (pl), "Lưu ý", "Mẹo" (vi), "Attenzione" (it).
    r"let op|uwaga|lưu ý|mẹo|attenzione|"
    # "Note" in Finnish, Hungarian, Romanian, Greek, Hebrew, Thai, French.
    r"huom(?:aa|io)?|megjegyzés|notă|σημείωση|הערה|שימו לב|หมายเหตุ|remarque|nota|"
    # "Please note", "Attention", "Important" (ru, uk); "Achtung", "Hinweis" (de).
    r"обратите внимание|внимание|важно|примечание|зверніть увагу|увага|важливо|achtung|hinweis|"
    # "How it works (inside)" in other languages.
    r"(?:como|cómo|come|comment)\s+(?:funciona|funziona|ça (?:marche|fonctionne))(?:\s+por dentro)?|"
    r"wie (?:es|das) funktioniert)"
    r"(?:$|\s*[:：!]|\s+(?:of|for|with|in|on|from|when|to)\b.*)"
    r"|示例|例子|用法|注意|为什么|如何|使用例|注意事項|なぜ|예제|예시|주의|小贴士|팁|.*のヒント$"
    # "Note" in Korean, Japanese and Chinese call-outs.
    r"|참고(?:\s?사항)?$|備考$|备注$",
    re.IGNORECASE)

# Who made a change, set as a heading right under the change's: "Contributed by Ada Byron".
# It signs the part, as a byline signs a post: the text under it is the change's.
CREDIT_LINE = lazy_re.compile(
    r"(?:contributed|written|authored|implemented|beigetragen|contribué|contribuido|contribuído)\s+(?:by|von|par|por)\s",
    re.IGNORECASE)

# Under a feature these frame its details ("What's new", "Breaking change"); at the top of
# a post they name a group of changes.
NESTED_ASIDE = lazy_re.compile(r"(?:what'?s new|breaking changes?)[.:!]?", re.IGNORECASE)

# A page's row of links, three or more of a few words parted by bars: "Privacy Policy | Code
# of Conduct | Contact". (Over a statement of its own, "Linux | macOS | Windows installers"
# names a part.)
LINK_ROW = lazy_re.compile(r"[^|\s]+(?:\s[^|\s]+){0,2}(?:\s\|\s[^|\s]+(?:\s[^|\s]+){0,2}){2,}")

# The site's ways around the post: its contents, the posts before and after it.
NAVIGATION = lazy_re.compile(
    r"(?:table of contents|contents|on this (?:page|post)|in this (?:post|article)|toc|"
    r"(?:previous|next|older|newer) (?:post|article|entry)s?(?::.*)?|"
    r"inhalt|inhaltsverzeichnis|sommaire|índice|indice|contenido|spis treści|inhoudsopgave|mục lục|"
    r"(?:previous|older|other) (?:versions|releases)|"
    # The hidden headings a code host's page names its chrome with: "Footer", "Navigation Menu".
    r"footer(?: navigation)?|navigation menu|"
    # A page's copyright line ("© 2027 Lumen authors · Imprint"); a dump's pager, the links
    # to the posts before and after side by side ("« Lumen 2.0 released   Lumen 2.2 released »").
    r"(?:©|\(c\)|copyright ©?)\s*\d{4}\b.*|«\s.*\S\s{2,}\S.*\s»)$"
    # An arrow or a lone guillemet points to another page ("« Older posts"); a pair of
    # guillemets quotes a name ("Theme « Sable »"), an arrow between two words maps one to
    # the other ("PNG→WebP"). A text dump draws the arrow with an angle bracket set apart
    # ("< Older post", "Newer post >").
    r"|目录|目次|もくじ|목차|本文内容|.*(?<!\w)[←→]|.*[←→](?!\w)|[^«]*»[^«»]*$|[^«»]*«[^»]*$|<\s|.*\s>$",
    re.IGNORECASE)

# How long the post takes to read, which a blog sets in bold over the post: "Reading time: 6
# minutes", "Lesezeit: 6 Minuten", "5 min read", "4 minutes de lecture". A read word is needed:
# "Setup in 5 minutes" is news.
_READ_WORDS = (r"(?:(?:estimated\s+)?read(?:ing)?\s+time|lesezeit|lesedauer|temps de lecture|tiempo de lectura|"
               r"tempo de leitura|tempo di lettura|czas czytania|leestijd|время чтения|阅读时间|閱讀時間|読了時間)")
READING_TIME = lazy_re.compile(
    _READ_WORDS + r"\s*[:：]?\s*(?:~|ca\.\s*|about\s+|etwa\s+)?\d{1,3}\s*[^\W\d_]*\.?"
    r"|\d{1,3}\s*[^\W\d_]*\.?\s+(?:read|de lecture|de lectura|de leitura|di lettura|czytania|чтения)",
    re.IGNORECASE)

# Steps the reader takes, under a feature: "Set up the hierarchy", "See the full template".
INSTRUCTION = lazy_re.compile(
    r"(?:set up|see|enable|disable|configure|check|install|try|learn|leave|read|run|use|opt in|opt out|"
    r"einrichten|aktivieren|configurer|activer|configurar|activar)\b", re.IGNORECASE)

# A heading inviting to watch or hear what stands under it, or naming it (a video, a
# stream), in a few languages: over a player a page's text keeps nothing of.
MEDIA = lazy_re.compile(r"^(?:watch|view|listen|see|ansehen|regarder|écouter|assista|assistir|guarda|ver)\b|"
                        r"\b(?:videos?|vídeos?|vidéos?|(?:live)?streams?|recordings?|demos?)\b|"
                        r"视频|观看|動画|ビデオ|観る|동영상|영상|시청", re.IGNORECASE)

# A part's one line saying the release brings nothing of its kind, and no more: "There are no
# new importers in this release.", "No changes.", "None." ("There is no longer a limit", "No
# changes to your settings are needed: it starts twice as fast" are news.)
NOTHING_NEW = lazy_re.compile(
    r"(?:there (?:is|are) no (?:new|updated|other|notable|further)\b[^.:;]{0,80}|no (?:new |notable |other )?changes"
    r"(?: (?:in|for) this (?:release|version))?|nothing new|none|n/a|keine (?:neuen \w+|änderungen)|"
    r"aucun(?:e)? (?:changement|nouveauté)s?|no hay (?:cambios|novedades)|nenhuma? (?:mudança|novidade)s?)"
    r"\s*[.!]?$", re.IGNORECASE)

# Names of parts that group a post's news, never news themselves: "Highlights", "TL;DR",
# "New features", "Other changes", "All changes", "Compatibility", "What's new in 2.0", "主要特性".
GROUPING = lazy_re.compile(
    r"(?:(?:all|other|new|notable|noteworthy|more|key|major|minor|main|relevant|additional|general|breaking|release)\s+)?"
    r"(?:(?:stable|beta|prototype|alpha|experimental|preview|deprecated)\s+)?"
    r"(?:highlights?(?:\s+(?:from|of|in)\b.*)?|summary|overview|introduction|intro|tl;?\s?dr|features|changes|"
    r"improvements|updates|enhancements|what'?s (?:new|changed)(?:\s+in\b.*)?|miscellaneous|misc|"
    r"compatibility(?:\s+notes)?|bug\s?fixes|fixes|deprecations|removals|(?:release notes|changelog)(?:\s+for\b.*)?|"
    r"preface|foreword|about this release|important notes|supported versions|dependencies|requirements)"
    r"(?:\s+(?:and|&)\s+(?:bug\s?)?fixes)?[.:!?]?"
    # A summary's heading in a few more languages: "In het kort", "W skrócie", "Tóm tắt".
    r"|in het kort|w skrócie|tóm tắt"
    # "Introduction" in it, es, pt, de, fr, pl, nl, ru.
    r"|introduzione|introducción|introdução|einleitung|einführung|wprowadzenie|inleiding|введение"
    # "What's new" in Bulgarian, Russian, Ukrainian.
    r"|какво е ново|что нового|що нового"
    r"|(?:主要|其他|其它|新|版本)?(?:特性|功能|亮点|亮點|概述|概览|概覽|总览|總覽|总结|總結|变更|變更|更新|改进|改進)|ハイライト|新機能|概要|まとめ|その他の変更|"
    # Improvements and changes (ja, ko), alone or joined: "改善・変更", "개선사항".
    r"(?:改善|変更)点?(?:[・、と](?:改善|変更)点?)?|"
    r"주요\s?기능|새로운\s?기능|요약|개요|기타\s?변경|(?:개선|변경)\s?사항|"
    # "Breaking changes" in Chinese and Japanese.
    r"(?:重大|破坏性|破壞性|中断性|不兼容的?|不相容的?)(?:变更|變更|更改)|破壊的変更|互換性のない変更",
    re.IGNORECASE)


# A heading that names a kind of change in the plural opens a group of them, however it
# goes on: "Improvements that graduated to beta", "Deprecations and removals in 2.0".
GROUP_PHRASE = lazy_re.compile(
    r"(?:(?:other|new|notable|more|major|minor|additional)\s+)?"
    r"(?:(?:stable|beta|prototype|alpha|experimental|preview|deprecated)\s+)?"
    r"(?:improvements|features|changes|enhancements|deprecations|removals|graduations|additions|bug\s?fixes)\b",
    re.IGNORECASE)


# German and Dutch join the kind of change to what it changes, in one word:
# "Sicherheitsfunktionen" (security features), "Prestatieverbeteringen".
_COMPOUND_CHANGES = lazy_re.compile(r"(?:verbesserungen|funktionen|änderungen|neuerungen|erweiterungen|"
                                    r"verbeteringen|functies|wijzigingen)\s*$", re.IGNORECASE)


def ends_naming_changes(text: str) -> bool:
    """Whether a heading ends naming a kind of change ("Web console improvements"), as a
    figure's caption never does."""
    found = GROUP_PHRASE.search(text)
    return found is not None and found.end() == len(text.rstrip()) or bool(_COMPOUND_CHANGES.search(text))


# A numbered part's number: "3. Getting it" names the part "Getting it".
_PART_NUMBER = lazy_re.compile(r"^\d{1,2}[.)]\s+(?=\S)")


def without_part_number(heading: str) -> str:
    return _PART_NUMBER.sub("", heading)


def is_grouping_name(heading: str) -> bool:
    return bool(GROUPING.fullmatch(_without_trailing_symbols(heading.strip())))


# An emoji after a part's name decorates it ("Highlights ✨"), as one before it does.
_EMOJI_JOINERS = "\ufe0f\u200d"


def _without_trailing_symbols(text: str) -> str:
    end = len(text)
    while end and (unicodedata.category(text[end - 1]) == "So" or text[end - 1] in _EMOJI_JOINERS):
        end -= 1
    return text[:end].rstrip() if end < len(text) else text


# A mail's salutation, over its first paragraph: "Hi all", "Hello Wren users", "開発者の皆さま".
SALUTATION = lazy_re.compile(
    r"(?:dear|hi|hello|hey|greetings|liebe|hallo|bonjour|salut|hola|ciao|olá)\s+"
    r"(?:all|everyone|everybody|folks|friends|there|zusammen|alle|à tous|a todos|a tutti|todos|"
    r"(?:\S+\s+){1,2}(?:users|developers|community|team|friends|nutzer|entwickler))[,!:.]?"
    r"|.{0,40}(?:皆さま|皆様|各位|の皆さん|여러분(?:께)?|大家好)[、,，!！]?", re.IGNORECASE)

# A post's opening part, before its news: how to read it, the project's policies, its people.
PREFACE = lazy_re.compile(
    r"(?:preface|foreword|vorwort|préface|prefacio|prefazione|前言|序言|まえがき|はじめに|머리말)[.:]?", re.IGNORECASE)
