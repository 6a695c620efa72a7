"""The words ADR logs write for a status, for a status's negation and supersession, and
for their sections and keys, in English and other languages, as gitmem reads them. Apart
from ``gitmem.vocab`` since session 74: only the readers of ADRs (``sections``,
``adrimport``, ``adrnew``) need them, and every agent hook imports ``vocab``.
"""

# The words ADR logs write for a status ("Implemented", "Draft"), as gitmem's status.
ADR_STATUS_WORDS = {
    "accepted": "accepted",
    "agreed": "accepted",
    "approved": "accepted",
    "implemented": "accepted",
    "adopted": "accepted",
    "done": "accepted",
    "active": "accepted",
    "completed": "accepted",
    "decided": "accepted",
    "final": "accepted",
    "finalized": "accepted",
    "finalised": "accepted",
    "ratified": "accepted",
    "current": "accepted",
    "enforced": "accepted",
    "proposed": "proposed",
    "draft": "proposed",
    "wip": "proposed",
    "pending": "proposed",
    "open": "proposed",
    # since session 74 (before, each read as accepted, silently): "In review", "Under
    # discussion", "RFC", "In progress", "On hold", "TBD", "Under consideration"
    "review": "proposed",
    "reviewing": "proposed",
    "discussion": "proposed",
    "discussing": "proposed",
    "rfc": "proposed",
    "progress": "proposed",
    "hold": "proposed",
    "postponed": "proposed",
    "deferred": "proposed",
    "tbd": "proposed",
    "todo": "proposed",
    "undecided": "proposed",
    "consideration": "proposed",
    "experimental": "proposed",
    "deprecated": "deprecated",
    "depreciated": "deprecated",  # as written in real logs, like "superceded"
    "obsolete": "deprecated",
    "retired": "deprecated",
    "superseded": "superseded",
    "superceded": "superseded",
    "replaced": "superseded",
    "rejected": "rejected",
    "declined": "rejected",
    "abandoned": "rejected",
    "withdrawn": "rejected",
    "cancelled": "rejected",
    "canceled": "rejected",
}
ENGLISH_STATUS_WORDS = frozenset(ADR_STATUS_WORDS)
# Spanish, Portuguese, German, French and Italian logs' status words (since session 74:
# before, "Aceito", "Proposto" and "Abgelehnt" each read as accepted, silently)
ADR_STATUS_WORDS.update(
    dict.fromkeys(
        ("aceptado", "aceptada", "aprobado", "aprobada", "implementado", "implementada",
         "aceito", "aceita", "aprovado", "aprovada", "akzeptiert", "angenommen", "genehmigt",
         "beschlossen", "umgesetzt", "accepté", "acceptée", "approuvé", "approuvée", "adopté",
         "adoptée", "implémenté", "implémentée", "accettato", "accettata", "approvato",
         "approvata", "implementato", "implementata"),
        "accepted",
    )
    # phodal/adr's words for "done" (its French ones as its menu writes them: unaccented)
    | dict.fromkeys(("finalizado", "finalizada", "terminé", "terminée", "termine", "accepte"),
                    "accepted")
    | dict.fromkeys(("propose",), "proposed")
    | dict.fromkeys(("deprecie",), "deprecated")
    | dict.fromkeys(("remplace",), "superseded")
    | dict.fromkeys(("cancelado", "cancelada"), "rejected")
    # Russian (since session 75, as phodal/adr writes them: before, read as accepted)
    | dict.fromkeys(("принято", "принят", "принята", "одобрено", "одобрен", "реализовано",
                     "реализован", "выполнено", "завершено", "действует"), "accepted")
    | dict.fromkeys(("предложено", "предложен", "предложена", "черновик", "обсуждается",
                     "рассматривается"), "proposed")
    | dict.fromkeys(("устарело", "устарел", "устарела", "упразднено"), "deprecated")
    | dict.fromkeys(("заменено", "заменён", "заменен", "заменена", "изменено"), "superseded")
    | dict.fromkeys(("отклонено", "отклонён", "отклонен", "отклонена", "отменено"), "rejected")
    | dict.fromkeys(
        ("propuesto", "propuesta", "borrador", "revisión", "discusión", "proposto", "proposta",
         "rascunho", "revisão", "discussão", "vorgeschlagen", "entwurf", "vorschlag",
         "prüfung", "proposé", "proposée", "brouillon", "bozza", "revisione", "discussione"),
        "proposed",
    )
    | dict.fromkeys(
        ("obsoleto", "obsoleta", "deprecado", "deprecada", "descontinuado", "descontinuada",
         "veraltet", "abgekündigt", "obsolète", "déprécié", "dépréciée", "deprecato",
         "deprecata"),
        "deprecated",
    )
    | dict.fromkeys(
        ("reemplazado", "reemplazada", "sustituido", "sustituida", "substituído",
         "substituída", "substituido", "substituida", "abgelöst", "remplacé",
         "remplacée", "sostituito", "sostituita"),
        "superseded",
    )
    | dict.fromkeys(
        ("rechazado", "rechazada", "rejeitado", "rejeitada", "abgelehnt", "verworfen",
         "rejeté", "rejetée", "refusé", "refusée", "rifiutato", "rifiutata", "respinto",
         "respinta"),
        "rejected",
    )
)  # fmt: skip
# "superseded by X" as those logs write it: the words before the successor's reference
SUPERSEDED_BY_PHRASES = (
    "superseded by", "replaced by", "reemplazado por", "reemplazada por", "sustituido por",
    "sustituida por", "substituído por", "substituída por", "substituido por",
    "substituida por", "ersetzt durch", "abgelöst durch", "remplacé par", "remplacée par",
    "sostituito da", "sostituita da",
)  # fmt: skip
# A status word after one of these is not the status: "Not accepted", "Not yet decided"
# are no decision in force (read as proposed: shown, flagged, not law); "not rejected" says
# nothing (before session 74 each read as the word it negates)
STATUS_NEGATIONS = frozenset(
    ("not", "no", "never", "nicht", "kein", "nie", "pas", "non", "não", "nao", "не")
)
# Chinese (simplified, traditional) and Japanese ADR logs: their status words, read where an
# English log writes "Accepted" (the earliest in the status text wins; longer words first,
# so that "未採用" is not read as "採用").
CJK_STATUS_WORDS = {
    "已接受": "accepted",
    # phodal/adr's Chinese menu: 提议/通过/完成/已弃用/已取代 (since session 75: 通过 and
    # 完成 were read as no status)
    "未通过": "rejected",
    "未通過": "rejected",
    "已通过": "accepted",
    "通过": "accepted",
    "通過": "accepted",
    "已完成": "accepted",
    "完成": "accepted",
    "接受": "accepted",
    "已采纳": "accepted",
    "采纳": "accepted",
    "已採納": "accepted",
    "採納": "accepted",
    "已批准": "accepted",
    "批准": "accepted",
    "已通過": "accepted",
    "已实施": "accepted",
    "已實施": "accepted",
    "已实现": "accepted",
    "已實現": "accepted",
    "承認済み": "accepted",
    "承認": "accepted",
    "採用": "accepted",
    "採択": "accepted",
    "合意": "accepted",
    "提议": "proposed",
    "提議": "proposed",
    "建议": "proposed",
    "建議": "proposed",
    "草案": "proposed",
    "草稿": "proposed",
    "讨论中": "proposed",
    "討論中": "proposed",
    "提案中": "proposed",
    "提案": "proposed",
    "検討中": "proposed",
    "下書き": "proposed",
    "已废弃": "deprecated",
    "已廢棄": "deprecated",
    "废弃": "deprecated",
    "廢棄": "deprecated",
    "已弃用": "deprecated",
    "弃用": "deprecated",
    "棄用": "deprecated",
    "非推奨": "deprecated",
    "廃止": "deprecated",
    "已取代": "superseded",
    "被取代": "superseded",
    "已替代": "superseded",
    "被替代": "superseded",
    "置き換え済み": "superseded",
    "置き換え": "superseded",
    "置換": "superseded",
    "已拒绝": "rejected",
    "已拒絕": "rejected",
    "拒绝": "rejected",
    "拒絕": "rejected",
    "却下": "rejected",
    "不採用": "rejected",
    "未採用": "rejected",
}
# The same logs' section and key names, as the English ones gitmem reads, and (since
# session 74) Spanish, Portuguese, German, French and Italian ones, and (since session 75)
# Russian ones.
TRANSLATED_KEYS = {
    "状态": "status",
    "狀態": "status",
    "状態": "status",
    "ステータス": "status",
    "日期": "date",
    "日付": "date",
    "决策": "decision",
    "決策": "decision",
    "决定": "decision",
    "決定": "decision",
    "決定事項": "decision",
    "決定内容": "decision",
    "决策结果": "decision outcome",
    "決策結果": "decision outcome",
    "背景": "context",
    "上下文": "context",
    "コンテキスト": "context",
    "摘要": "summary",
    "概要": "summary",
    "总结": "summary",
    "總結": "summary",
    "变更记录": "changelog",
    "變更記錄": "changelog",
    "変更履歴": "changelog",
    "参考": "references",
    "参考资料": "references",
    "參考資料": "references",
    "参考文献": "references",
    "决策者": "deciders",
    "決定者": "deciders",
    "作者": "authors",
    "estado": "status",
    "situação": "status",
    "statut": "status",
    "stato": "status",
    "fecha": "date",
    "datum": "date",
    "decisión": "decision",
    "decisao": "decision",
    "decisão": "decision",
    "entscheidung": "decision",
    "décision": "decision",
    "decisione": "decision",
    "resultado de la decisión": "decision outcome",
    "resultado da decisão": "decision outcome",
    "entscheidungsergebnis": "decision outcome",
    "résultat de la décision": "decision outcome",
    "esito della decisione": "decision outcome",
    "contexto": "context",
    "kontext": "context",
    "contexte": "context",
    "contesto": "context",
    "resumen": "summary",
    "resumo": "summary",
    "zusammenfassung": "summary",
    "résumé": "summary",
    "sommario": "summary",
    "referencias": "references",
    "referências": "references",
    "referenzen": "references",
    "références": "references",
    "riferimenti": "references",
    "autores": "authors",
    "autoren": "authors",
    "auteurs": "authors",
    "autori": "authors",
    "статус": "status",
    "дата": "date",
    "решение": "decision",
    "контекст": "context",
    "последствия": "consequences",
    "резюме": "summary",
    "ссылки": "references",
}
# the months' names, as a date in a status line writes them ("Accepted on 5 March 2024")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# "supersedes X" as they write it (read as whole words: "substituído" is not "substitui")
SUPERSEDES_WORDS = ("supersedes", "replaces", "reemplaza", "sustituye", "substitui", "ersetzt",
                    "remplace", "sostituisce")  # fmt: skip
