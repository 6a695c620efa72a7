"""The fixed vocabulary of decision records. Import-light (hook hot path)."""

# gitmem's own records, relative to the repository root (ADR folders read in place are
# configured apart)
RECORD_DIR = ".continuity/decisions/"


def is_own_record(rel: str) -> bool:
    """Whether the repository path ``rel`` is one of gitmem's own records."""
    return rel.startswith(RECORD_DIR) and rel.lower().endswith(".md")


STATUSES = ("proposed", "accepted", "deprecated", "superseded", "rejected")
SEVERITIES = ("critical", "warning", "info")
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# Statuses whose decisions still govern code. A proposal is shown (flagged) but is not law.
CURRENT_STATUSES = ("accepted", "proposed")
# A query term found in more than this share of the records is not worth scoring: its BM25
# IDF is zero or below (FTS5 floors it to 1e-6) while its postings cost the most to read.
MAX_TERM_SHARE = 0.5
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
    ("not", "no", "never", "nicht", "kein", "nie", "pas", "non", "não", "nao")
)
# Chinese (simplified, traditional) and Japanese ADR logs: their status words, read where an
# English log writes "Accepted" (the earliest in the status text wins; longer words first,
# so that "未採用" is not read as "採用").
CJK_STATUS_WORDS = {
    "已接受": "accepted",
    "接受": "accepted",
    "已采纳": "accepted",
    "采纳": "accepted",
    "已採納": "accepted",
    "採納": "accepted",
    "已批准": "accepted",
    "批准": "accepted",
    "已通过": "accepted",
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
# session 74) Spanish, Portuguese, German, French and Italian ones.
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
}


def clipped(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one an ellipsis, where it is longer."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def shown_name(name: str) -> str:
    """A file's name as a line shows it: as it is, or in quotes with escapes where it holds
    a line break, a control or a hidden character (``gitmem.hidden.quoted``), so that a
    name's text never begins a line of its own, restyles a terminal or hides text."""
    if name.isascii() and name.isprintable():
        return name
    from gitmem.hidden import quoted

    return quoted(name)


def counted(n: object, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 record", "3 records"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
