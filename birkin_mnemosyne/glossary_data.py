"""Cross-language glossary data: one concept per line, its forms separated by " | ".

Each row of ``ROWS`` names one concept in the languages the notes are written in:
English first, then German, Spanish, French, Korean, Japanese and Chinese (simplified,
plus the traditional form where it differs and is common). A row may give several forms
per language: plurals and irregular forms, synonyms engineers really use, and the
loanword transliterations written in Korean and Japanese notes. All forms on a row are
equivalent, so a row never mixes two concepts and no form appears on two rows (nor two
forms whose analysed terms coincide, such as English "month"/"monthly", which share the
stem "month" and therefore share a row). Left out: forms that differ from another form
on the row only by case or accents (the analyser folds them), stopwords, one-letter
forms, German compounds whose 7-letter stem is another row's word (Zertifikatskette vs
Zertifikat), forms the analyser reads as a month's name (French "en marche" is the
English "March": it would score every note dated in March). Japanese forms with
okurigana (振り返り, 引き継ぎ, 戻す) are kept: the
analyser cuts them into one-character units, which such a form never adds to a query
in another language, but a query holding one finds the concept
(``glossary._holds_form``). Lines starting with ``#`` are section comments. The rows
were written from general IT and operations vocabulary, not from any evaluation data.
"""

ROWS = """
# ---------------------------------------------------------------- note kinds and memory words
runbook | runbooks | run book | playbook | playbooks | manual de operaciones | manuel d'exploitation | 런북 | 운영 매뉴얼 | ランブック | 運用手順書 | 手順書 | 运维手册 | 運維手冊
procedure | procedures | Vorgehensweise | Verfahren | procedimiento | procedimientos | 절차 | 절차서 | 手順 | 操作步骤 | 步骤 | 流程 | 步驟
how-to | howto | guide | guides | tutorial | Anleitung | Leitfaden | guía | guías | 가이드 | 안내서 | ガイド | 指南 | 教程
handbook | Handbuch | manuel | 매뉴얼 | マニュアル | 手册 | 手冊
host | hosts | hôte | hôtes | 호스트 | ホスト | 主机 | 主機
server | servers | servidor | servidores | serveur | serveurs | 서버 | サーバー | サーバ | 服务器 | 伺服器 | 服務器
machine | machines | Maschine | Maschinen | máquina | máquinas | 머신 | マシン | 机器
computer | computers | Rechner | ordenador | computadora | ordinateur | 컴퓨터 | コンピューター | コンピュータ | パソコン | 计算机 | 电脑 | 電腦
device | devices | Gerät | Geräte | dispositivo | dispositivos | appareil | périphérique | 장비 | 기기 | 디바이스 | デバイス | 機器 | 端末 | 设备 | 設備 | 裝置
lesson | lessons | lessons learned | lesson learned | Erkenntnis | Erkenntnisse | Lehre | Lehren | lección | lecciones | lecciones aprendidas | leçon | leçons | leçons apprises | retour d'expérience | 교훈 | 教訓 | 教训 | 经验教训 | 經驗教訓
finding | findings | Befund | Befunde | hallazgo | hallazgos | constat | constatation | 발견 사항 | 知見 | 発見 | 发现 | 發現
decision | decisions | Entscheidung | Entscheidungen | Beschluss | decisiones | 결정 | 의사결정 | 決定 | 意思決定 | 决定 | 决策 | 決策
reason | reasons | rationale | justification | Grund | Gründe | Begründung | motivo | razón | justificación | raison | 이유 | 근거 | 理由 | 根拠
root cause | cause | causes | Ursache | Ursachen | Grundursache | causa | causa raíz | cause racine | 원인 | 근본 원인 | 原因 | 根本原因 | 根因
background | context | Hintergrund | Kontext | contexto | antecedentes | contexte | 배경 | 맥락 | 背景 | 経緯 | コンテキスト | 上下文
journal | work journal | diary | logbook | log book | work log | worklog | operations log | ops log | Tagebuch | Logbuch | bitácora | diario de trabajo | journal de bord | journal de travail | 일지 | 작업 일지 | 작업일지 | 업무 일지 | 日誌 | 作業日誌 | 作業記録 | 工作日志 | 工作日记 | 日记
meeting | meetings | Besprechung | Besprechungen | reunión | reuniones | réunions | 회의 | 미팅 | ミーティング | 会議 | 会议 | 會議
meeting minutes | meeting notes | acta | actas | acta de reunión | compte rendu | procès-verbal | 회의록 | 議事録 | 会议纪要 | 会议记录 | 會議記錄
incident | incidents | Vorfall | Vorfälle | incidente | incidentes | incidencia | incidencias | 인시던트 | インシデント | 事故 | 线上事故
outage | outages | service outage | Ausfall | Ausfälle | Störung | Störungen | caída | caída del servicio | interrupción del servicio | panne | pannes | interruption de service | 장애 | 서비스 장애 | 서비스장애 | 障害 | システム障害 | 服务中断 | 服務中斷
downtime | tiempo de inactividad | temps d'arrêt | 다운타임 | ダウンタイム | 停机时间 | 停機時間
postmortem | post-mortem | post mortem | incident report | incident review | Nachbetrachtung | informe de incidente | análisis post mortem | rapport d'incident | 포스트모템 | 장애 보고서 | 장애보고서 | 사후 분석 | ポストモーテム | 障害報告書 | 复盘 | 事后分析 | 故障报告 | 事故报告
retrospective | retro | retros | Retrospektive | retrospectiva | 회고 | レトロスペクティブ | 振り返り | 回顾 | 回顧
timeline | Zeitleiste | Zeitverlauf | cronología | línea de tiempo | chronologie | 타임라인 | タイムライン | 時系列 | 时间线 | 時間線
impact | Auswirkung | Auswirkungen | impacto | 영향 | 영향도 | 影響 | 影響範囲 | 影响 | 影响范围
preference | preferences | prefer | prefers | preferred | Präferenz | Präferenzen | Vorliebe | bevorzugen | bevorzugt | preferencia | preferencias | preferir | préférer | 선호 | 선호도 | 취향 | 偏好 | 喜好
rule | rules | Regel | Regeln | regla | reglas | règle | règles | 규칙 | ルール | 規則 | 规则
policy | policies | Richtlinie | Richtlinien | política | políticas | politique | politiques | 정책 | ポリシー | 方針 | 策略 | 方针
convention | conventions | Konvention | Konventionen | convención | 규약 | 컨벤션 | 規約 | 约定 | 約定
note | notes | memo | memos | Notiz | Notizen | nota | notas | apunte | apuntes | 노트 | 메모 | ノート | メモ | 笔记 | 筆記 | 备注
checklist | checklists | check list | Checkliste | lista de verificación | lista de comprobación | liste de contrôle | liste de vérification | 체크리스트 | チェックリスト | 检查清单 | 檢查清單
project | projects | Projekt | Projekte | proyecto | proyectos | projet | projets | 프로젝트 | プロジェクト | 案件 | 项目 | 專案
plan | plans | planning | Planung | planear | 계획 | 플랜 | 計画 | プラン | 计划 | 計劃 | 规划
todo | to-do | todo list | to-do list | lista de tareas | liste de tâches | 할일 | 투두 | やること | TODOリスト | 待办 | 待办事项 | 待辦
task | tasks | Aufgabe | Aufgaben | tarea | tareas | tâche | tâches | 작업 | 태스크 | タスク | 作業 | 任务 | 任務
summary | summaries | Zusammenfassung | resumen | synthèse | récapitulatif | 요약 | 要約 | まとめ | サマリー | 总结 | 摘要 | 總結
history | Verlauf | Historie | historial | historique | 이력 | 히스토리 | 履歴 | 历史 | 历史记录 | 歷史
changelog | change log | registro de cambios | journal des modifications | 변경 이력 | 변경 로그 | 変更履歴 | 更新履歴 | 变更日志 | 更新日志
report | reports | Bericht | Berichte | informe | informes | reporte | reportes | rapport | rapports | 보고서 | 리포트 | レポート | 報告書 | 报告 | 報告
owner | owners | person in charge | Verantwortlicher | Verantwortliche | Besitzer | Eigentümer | propietario | dueño | propriétaire | 담당자 | 소유자 | 오너 | 担当者 | 責任者 | オーナー | 所有者 | 负责人 | 負責人
team | teams | equipo | equipos | équipe | équipes | 팀 | チーム | 团队 | 團隊 | 小组
customer | customers | Kunde | Kunden | 고객 | 고객사 | 顧客 | 客户 | 客戶
pitfall | pitfalls | gotcha | gotchas | caveat | caveats | Stolperfalle | Fallstrick | trampa | piège | pièges | 함정 | 주의사항 | 注意点 | 注意事项 | 陷阱
workaround | workarounds | Umgehungslösung | Behelfslösung | solución alternativa | solución temporal | contournement | solution de contournement | 우회 방법 | 우회책 | 회피책 | 回避策 | ワークアラウンド | 暫定対応 | 临时方案 | 变通方法 | 规避方案
solution | solutions | Lösung | Lösungen | solución | soluciones | 해결책 | 해결 방법 | 解決策 | 解決 | 解决方案 | 解决 | 解決方案
problem | problems | issue | issues | Probleme | problema | problemas | problèmes | 문제 | 이슈 | 問題 | 課題 | イシュー | 问题
mistake | mistakes | human error | Versehen | Fehlbedienung | equivocación | error humano | erreur humaine | 실수 | 휴먼 에러 | ミス | 人為的ミス | ヒューマンエラー | 操作ミス | 失误 | 人为错误 | 誤操作 | 误操作
risk | risks | Risiko | Risiken | riesgo | riesgos | risque | risques | 리스크 | 위험 | リスク | 危険 | 风险 | 風險
template | templates | Vorlage | Vorlagen | plantilla | plantillas | gabarit | 템플릿 | 양식 | テンプレート | 雛形 | 模板 | 範本
documentation | document | documented | docs | Dokumentation | dokumentieren | documentación | documentar | documenter | 문서화 | 문서 | ドキュメント | 文書化 | 文档 | 文檔

# ---------------------------------------------------------------- time words
week | weeks | Woche | semana | semanas | semaine | semaines | 일주일 | 週間 | 一周 | 星期
month | months | monthly | every month | Monat | Monate | monatlich | meses | mensual | mensualmente | mois | mensuel | mensuelle | 개월 | 매월 | 월간 | 매달 | 毎月 | 月次 | 个月 | 個月 | 每月 | 月度
year | years | Jahr | Jahre | año | años | année | années | 연도 | 年度
quarter | quarters | quarterly | Quartal | Quartale | quartalsweise | trimestre | trimestres | trimestral | trimestriel | 분기 | 분기별 | 四半期 | 季度
schedule | schedules | scheduled | scheduling | Zeitplan | Terminplan | horario | programación | programar | planifier | planification | 일정 | 스케줄 | スケジュール | 予定 | 日程 | 时间表 | 排期
deadline | deadlines | due date | Frist | Abgabetermin | Stichtag | fecha límite | plazo | date limite | échéance | 마감 | 마감일 | 데드라인 | 締切 | 期限 | デッドライン | 截止日期 | 截止时间 | 最后期限
on-call week | semana de guardia | semaine d'astreinte | 당직 주간 | 온콜 주간 | 当番週 | 值班周
shift | shifts | Schicht | Schichten | turno | turnos | 교대 근무 | 근무조 | シフト | 勤務 | 班次 | 轮班 | 輪班
night | nights | nightly | overnight | every night | Nacht | Nächte | über Nacht | nächtlich | jede Nacht | nocturno | cada noche | nuit | nuits | nocturne | chaque nuit | 야간 | 毎晩 | 毎夜 | 夜間 | 夜中 | 深夜 | 夜间 | 晚上 | 每晚 | 每夜
morning | mornings | Vormittag | morgens | por la mañana | matin | matinée | 아침 | 오전 | 午前 | 早上 | 上午
weekend | weekends | Wochenende | fin de semana | 주말 | 週末 | 周末
public holiday | holiday | holidays | Feiertag | Feiertage | día festivo | festivo | jour férié | 공휴일 | 휴일 | 祝日 | 休日 | 节假日 | 假日
business hours | office hours | working hours | Geschäftszeiten | Bürozeiten | horario laboral | horario de oficina | heures ouvrées | heures de bureau | 업무 시간 | 근무 시간 | 근무시간 | 営業時間 | 業務時間 | 就業時間 | 工作时间 | 上班时间
maintenance window | ventana de mantenimiento | fenêtre de maintenance | 점검 시간 | メンテナンスウィンドウ | メンテナンス時間 | 维护窗口 | 維護時段
change freeze | code freeze | congelación de cambios | gel des changements | 변경 동결 | 코드 프리즈 | 変更凍結 | コードフリーズ | 封版 | 代码冻结 | 变更冻结

# ---------------------------------------------------------------- hardware, storage, data centre
disk | disks | disc | Platte | Platten | Datenträger | disco | discos | disque | disques | 디스크 | ディスク | 磁盘 | 磁碟
hard drive | hard drives | hard disk | HDD | Festplatte | Festplatten | disco duro | disque dur | 하드 디스크 | 하드디스크 | ハードディスク | 硬盘 | 硬碟
SSD | SSDs | solid-state drive | disco de estado sólido | 固态硬盘 | 固態硬碟
volume | volumes | volumen | volúmenes | 볼륨 | ボリューム | 存储卷 | 数据卷
partition | partitions | partición | particiones | 파티션 | パーティション | 分区 | 分區
filesystem | filesystems | file system | file systems | Dateisystem | Dateisysteme | sistema de archivos | sistema de ficheros | système de fichiers | 파일 시스템 | 파일시스템 | ファイルシステム | 文件系统 | 檔案系統
mount point | mountpoint | punto de montaje | point de montage | 마운트 포인트 | マウントポイント | 挂载点 | 掛載點
RAID | RAID array | RAID-Verbund | 레이드 | 磁盘阵列 | 磁碟陣列
NAS | network storage | network attached storage | almacenamiento en red | stockage réseau | 네트워크 스토리지 | ネットワークストレージ | 网络存储 | 網路儲存
storage | Speicher | almacenamiento | stockage | 스토리지 | 저장 공간 | ストレージ | 存储 | 儲存 | 存儲
object storage | object store | Objektspeicher | almacenamiento de objetos | stockage objet | stockage d'objets | 오브젝트 스토리지 | 객체 스토리지 | オブジェクトストレージ | 对象存储 | 物件儲存
bucket | buckets | 버킷 | バケット | 存储桶
file | files | Datei | Dateien | archivo | archivos | fichero | ficheros | fichier | fichiers | 파일 | ファイル | 文件 | 檔案
directory | directories | folder | folders | Verzeichnis | Verzeichnisse | Ordner | directorio | directorios | carpeta | carpetas | répertoire | répertoires | dossier | dossiers | 디렉터리 | 디렉토리 | 폴더 | ディレクトリ | フォルダ | フォルダー | 目录 | 目錄 | 文件夹 | 資料夾
path | paths | Pfad | Pfade | ruta | rutas | chemin | chemins | 경로 | パス | 路径 | 路徑
capacity | Kapazität | capacidad | capacité | 용량 | 容量 | キャパシティ
disk usage | Plattenbelegung | uso de disco | utilisation du disque | 디스크 사용량 | 디스크사용량 | ディスク使用率 | ディスク使用量 | 磁盘使用率 | 磁盘占用
free space | free up space | disk space | freier Speicherplatz | espacio libre | espacio en disco | liberar espacio | espace libre | espace disque | libérer de l'espace | 여유 공간 | 디스크 공간 | 공간 확보 | ディスク容量 | 容量確保 | 可用空间 | 剩余空间 | 磁盘空间 | 释放空间
memory | RAM | main memory | Arbeitsspeicher | memoria | memoria RAM | mémoire | mémoire vive | 메모리 | メモリ | メモリー | 内存 | 記憶體
out of memory | OOM | OOM killer | memoria insuficiente | sin memoria | mémoire insuffisante | 메모리 부족 | 메모리부족 | メモリ不足 | 内存不足 | 内存溢出 | 記憶體不足
memory leak | memory leaks | fuga de memoria | fuite de mémoire | 메모리 누수 | 메모리누수 | メモリリーク | 内存泄漏 | 記憶體洩漏
swap | swap space | Auslagerungsspeicher | espacio de intercambio | 스왑 | スワップ | 交换空间
CPU | CPUs | procesador | 프로세서 | プロセッサ | プロセッサー | 处理器 | 處理器
load | utilization | load average | Auslastung | carga | 부하 | 사용률 | 負荷 | 使用率 | 负载 | 負載 | 利用率
disk I/O | I/O | E/A | E/S | 입출력 | 入出力 | 输入输出 | 磁盘IO
hardware | 하드웨어 | ハードウェア | 硬件 | 硬體
software | logiciel | logiciels | 소프트웨어 | ソフトウェア | 软件 | 軟體
firmware | micrologiciel | 펌웨어 | ファームウェア | 固件 | 韌體
driver | drivers | Treiber | pilote | pilotes | 드라이버 | ドライバ | ドライバー | 驱动 | 驱动程序 | 驅動程式
printer | printers | Drucker | impresora | impresoras | imprimante | imprimantes | 프린터 | プリンター | プリンタ | 打印机 | 印表機
laptop | laptops | notebook | notebooks | portátil | ordenador portátil | ordinateur portable | 노트북 | 랩톱 | ノートパソコン | ラップトップ | 笔记本电脑 | 筆電
data center | data centre | datacenter | Rechenzentrum | RZ | centro de datos | centre de données | 데이터 센터 | 데이터센터 | IDC | データセンター | 数据中心 | 資料中心
server room | Serverraum | sala de servidores | salle serveur | salle des serveurs | 서버실 | 전산실 | サーバールーム | 机房 | 機房
rack | racks | Serverschrank | bastidor | armario rack | baie | 랙 | ラック | 机架 | 机柜 | 機櫃
power | electricity | power supply | Strom | Stromversorgung | energía | alimentación | suministro eléctrico | électricité | alimentation | 전원 | 전력 | 電源 | 電力 | 电源 | 电力 | 供电
power outage | power failure | blackout | Stromausfall | corte de luz | corte eléctrico | apagón | panne de courant | coupure de courant | 정전 | 停電 | 停电
UPS | uninterruptible power supply | USV | unterbrechungsfreie Stromversorgung | SAI | sistema de alimentación ininterrumpida | onduleur | 무정전 전원 장치 | 무정전전원장치 | 無停電電源装置 | 不间断电源 | 不斷電系統
cooling | Kühlung | refrigeración | enfriamiento | refroidissement | 냉각 | 冷却 | 散热 | 散熱
temperature | temperatures | Temperatur | temperatura | 온도 | 温度 | 溫度
fan | fans | Lüfter | ventilador | ventiladores | ventilateur | ventilateurs | 팬 | ファン | 风扇 | 風扇
battery | batteries | Batterie | Akku | batería | 배터리 | バッテリー | 電池 | 电池
cable | cables | Kabel | 케이블 | ケーブル | 线缆 | 电缆 | 网线
inventory | asset inventory | Inventar | Bestand | inventario | inventaire | 인벤토리 | 자산 목록 | インベントリ | 台帳 | 资产清单 | 资产台账
warranty | guarantee | Garantie | Gewährleistung | garantía | 보증 | 워런티 | 保証 | 保修 | 保固

# ---------------------------------------------------------------- networking
network | networks | networking | Netzwerk | Netzwerke | Netz | redes | réseau | réseaux | 네트워크 | ネットワーク | 网络 | 網路 | 網絡
subnet | subnets | Subnetz | Subnetze | subred | sous-réseau | 서브넷 | サブネット | 子网 | 子網路
VLAN | VLANs | virtual LAN | réseau local virtuel
network interface | NIC | interfaz de red | tarjeta de red | interface réseau | carte réseau | 네트워크 인터페이스 | 랜카드 | ネットワークインターフェース | 网卡 | 网络接口 | 網路卡
router | routers | enrutador | routeur | 라우터 | ルーター | ルータ | 路由器
switch | switches | conmutador | commutateur | 스위치 | スイッチ | 交换机 | 交換器
routing | route | routes | routing table | Routingtabelle | enrutamiento | tabla de rutas | routage | table de routage | 라우팅 | 라우팅 테이블 | ルーティング | 経路 | ルーティングテーブル | 路由 | 路由表
NAT | network address translation | traducción de direcciones de red | traduction d'adresses | 주소 변환 | アドレス変換 | 网络地址转换 | 地址转换
firewall | firewalls | cortafuegos | pare-feu | 방화벽 | 파이어월 | ファイアウォール | 防火墙 | 防火牆
VPN | VPNs | virtual private network | red privada virtual | réseau privé virtuel | 가상 사설망 | 虚拟专用网 | 虚拟专用网络
jump host | bastion host | bastion | jumphost | Sprungserver | servidor bastión | 점프 호스트 | 배스천 호스트 | 跳板机 | 堡垒机 | 跳板機
DNS | domain name system | name resolution | Namensauflösung | resolución de nombres | résolution de noms | 이름 해석 | 名前解決 | 域名解析 | 名稱解析
DNS record | DNS records | DNS-Eintrag | DNS-Einträge | registro DNS | enregistrement DNS | DNS 레코드 | DNSレコード | DNS记录 | 解析记录
nameserver | nameservers | name server | Namensserver | servidor de nombres | serveur de noms | 네임서버 | ネームサーバー | ネームサーバ | 域名服务器
DHCP | DHCP server | DHCP-Server | servidor DHCP | serveur DHCP | DHCP 서버 | DHCPサーバー | DHCP服务器
load balancer | load balancers | load balancing | Loadbalancer | Lastverteiler | Lastverteilung | balanceador de carga | balanceo de carga | répartiteur de charge | équilibreur de charge | répartition de charge | 로드 밸런서 | 로드밸런서 | 부하 분산 | 부하분산 | ロードバランサー | ロードバランサ | 負荷分散 | 负载均衡 | 负载均衡器 | 負載平衡
proxy | proxies | proxy server | Proxyserver | servidor proxy | serveur proxy | 프록시 | プロキシ | 代理 | 代理服务器
reverse proxy | reverse proxies | proxy inverso | proxy inverse | 리버스 프록시 | 리버스프록시 | リバースプロキシ | 反向代理
gateway | gateways | pasarela | puerta de enlace | passerelle | 게이트웨이 | ゲートウェイ | 网关 | 閘道
port | ports | puerto | puertos | 포트 | ポート | 端口
address | addresses | Adresse | Adressen | dirección | direcciones | 주소 | アドレス | 地址 | 位址
IP address | IP addresses | IP | IP-Adresse | IP-Adressen | dirección IP | direcciones IP | adresse IP | adresses IP | IP 주소 | IP주소 | IPアドレス | IP地址 | IP位址
hostname | hostnames | host name | nombre de host | nom d'hôte | 호스트명 | 호스트 이름 | 主机名 | 主機名稱
domain | domains | Domäne | dominio | dominios | domaine | domaines | 도메인 | ドメイン | 域名 | 網域
URL | URLs | web address | Webadresse | dirección web | adresse web | 웹 주소 | 网址 | 網址
traffic | Datenverkehr | tráfico | trafic | 트래픽 | トラフィック | 流量
bandwidth | Bandbreite | ancho de banda | bande passante | 대역폭 | 帯域 | 帯域幅 | 带宽 | 頻寬
packet loss | Paketverlust | pérdida de paquetes | perte de paquets | 패킷 손실 | 패킷 로스 | パケットロス | パケット損失 | 丢包 | 封包遺失
Wi-Fi | WiFi | WLAN | wireless | wireless LAN | drahtlos | inalámbrico | red inalámbrica | sans fil | 와이파이 | 무선 | 무선랜 | 無線LAN | 無線 | 无线 | 无线网络 | 無線網路
email | e-mail | emails | mail | mails | correo | correo electrónico | correos | courriel | courriels | 이메일 | 메일 | メール | Eメール | 电子邮件 | 邮件 | 郵件 | 電子郵件
mail server | mailserver | servidor de correo | serveur de messagerie | serveur mail | 메일 서버 | メールサーバー | メールサーバ | 邮件服务器 | 郵件伺服器
spam | correo no deseado | pourriel | 스팸 | スパム | 垃圾邮件 | 垃圾郵件
web server | webserver | servidor web | serveur web | 웹 서버 | 웹서버 | ウェブサーバー | Webサーバー | Webサーバ | Web服务器
website | websites | web site | Webseite | sitio web | site web | 웹사이트 | ウェブサイト | 网站 | 網站
location | site | sites | Standort | Standorte | ubicación | sede | emplacement | 위치 | 拠点 | 場所 | 位置
client | clients | 클라이언트 | クライアント | 客户端 | 用戶端

# ---------------------------------------------------------------- security, identity, access
certificate | certificates | cert | certs | Zertifikat | Zertifikate | certificado | certificados | certificat | certificats | 인증서 | 証明書 | 证书 | 證書
certificate renewal | cert renewal | renovación de certificado | renouvellement de certificat | 인증서 갱신 | 인증서갱신 | 証明書更新 | 证书续期 | 證書續期 | 证书更新
wildcard certificate | wildcard cert | Wildcard-Zertifikat | certificado wildcard | certificado comodín | certificat wildcard | 와일드카드 인증서 | ワイルドカード証明書 | 通配符证书 | 泛域名证书
self-signed certificate | self-signed | selbstsigniert | selbstsigniertes Zertifikat | certificado autofirmado | autofirmado | certificat auto-signé | auto-signé | 자체 서명 인증서 | 사설 인증서 | 自己署名証明書 | オレオレ証明書 | 自签名证书 | 自簽憑證
certificate chain | intermediate certificate | cadena de certificados | certificado intermedio | chaîne de certificats | certificat intermédiaire | 인증서 체인 | 중간 인증서 | 中間証明書 | 証明書チェーン | 证书链 | 中间证书
certificate authority | autoridad de certificación | autorité de certification | 인증 기관 | 認証局 | 证书颁发机构
TLS | SSL
key | keys | Schlüssel | clave | claves | clé | clés | 암호화 키 | キー | 密钥 | 金鑰 | 秘钥
private key | private keys | privater Schlüssel | clave privada | clé privée | 개인키 | 秘密鍵 | 私钥 | 私鑰
public key | public keys | öffentlicher Schlüssel | clave pública | clé publique | 공개키 | 公開鍵 | 公钥 | 公鑰
SSH key | SSH keys | SSH-Schlüssel | clave SSH | clé SSH | SSH 키 | SSH키 | SSHキー | SSH密钥
API key | API keys | API-Schlüssel | clave de API | clave API | clé API | clé d'API | API 키 | APIキー | API密钥
password | passwords | Passwort | Passwörter | Kennwort | contraseña | contraseñas | mot de passe | mots de passe | 비밀번호 | 패스워드 | パスワード | 密码 | 密碼 | 口令
password reset | Passwort zurücksetzen | restablecer contraseña | réinitialisation du mot de passe | 비밀번호 재설정 | 비밀번호 초기화 | パスワードリセット | パスワード再設定 | 重置密码 | 密碼重設
credentials | credential | Zugangsdaten | credenciales | identifiants | 자격 증명 | 크리덴셜 | 認証情報 | クレデンシャル | 凭据 | 凭证 | 憑證
secret | secrets | secreto | secretos | 시크릿 | シークレット | 机密
token | tokens | jeton | jetons | 토큰 | トークン | 令牌
user | users | Benutzer | Nutzer | Anwender | usuario | usuarios | utilisateur | utilisateurs | 사용자 | 유저 | ユーザー | ユーザ | 利用者 | 用户 | 用戶
account | accounts | Konto | Konten | cuenta | cuentas | compte | comptes | 계정 | アカウント | 账号 | 账户 | 帳號 | 帳戶
service account | service accounts | Dienstkonto | cuenta de servicio | compte de service | 서비스 계정 | サービスアカウント | 服务账号 | 服务账户
admin | admins | administrator | administrators | sysadmin | administrador | administradores | administrateur | administrateurs | 관리자 | 어드민 | 管理者 | 管理员 | 管理員
root | root user | superuser | Root-Benutzer | superusuario | superutilisateur | 루트 | 루트 계정 | 超级用户 | root用户
permission | permissions | access rights | privileges | Berechtigung | Berechtigungen | Rechte | permiso | permisos | derechos de acceso | droits | droits d'accès | 권한 | 접근 권한 | 접근권한 | 権限 | パーミッション | 权限 | 權限
authorization | authorisation | Autorisierung | autorización | autorisation | 인가 | 認可 | 授权 | 授權
authentication | auth | authenticate | Authentifizierung | Authentisierung | autenticación | authentification | 인증 | 認証 | 认证 | 身份验证
two-factor authentication | 2FA | MFA | multi-factor authentication | Zwei-Faktor-Authentifizierung | autenticación de dos factores | autenticación multifactor | authentification à deux facteurs | double authentification | 2단계 인증 | 이중 인증 | 다중 인증 | 二要素認証 | 二段階認証 | 多要素認証 | 双因素认证 | 多因素认证 | 雙重驗證
access | Zugriff | Zugang | acceso | accès | 접근 | 액세스 | アクセス | 访问 | 存取
group | groups | Gruppe | Gruppen | grupo | grupos | groupe | groupes | 그룹 | グループ | 群组 | 用户组 | 群組
role | roles | Rolle | Rollen | rol | 역할 | ロール | 役割 | 角色
login | logins | log in | logon | sign in | sign-in | anmelden | Anmeldung | einloggen | iniciar sesión | inicio de sesión | 로그인 | ログイン | サインイン | 登录 | 登入 | 登錄
logout | log out | sign out | abmelden | Abmeldung | ausloggen | cerrar sesión | 로그아웃 | ログアウト | 登出 | 退出登录
session | sessions | Sitzung | Sitzungen | sesión | sesiones | 세션 | セッション | 会话 | 會話
cookie | cookies | 쿠키 | クッキー
security | secure | Sicherheit | abgesichert | seguridad | sécurité | sécurisé | 보안 | セキュリティ | セキュア | 信息安全 | 网络安全 | 資安
encryption | encrypt | encrypted | Verschlüsselung | verschlüsseln | verschlüsselt | cifrado | cifrar | encriptación | encriptar | chiffrement | chiffrer | chiffré | 암호화 | 暗号化 | 加密
decryption | decrypt | decrypted | Entschlüsselung | entschlüsseln | descifrar | descifrado | desencriptar | déchiffrement | déchiffrer | 복호화 | 復号 | 復号化 | 解密
checksum | checksums | hash | hashes | Prüfsumme | suma de comprobación | somme de contrôle | 체크섬 | 해시 | チェックサム | ハッシュ | 校验和 | 哈希 | 雜湊
vulnerability | vulnerabilities | Schwachstelle | Schwachstellen | vulnerabilidad | vulnerabilidades | vulnérabilité | vulnérabilités | faille | 취약점 | 脆弱性 | 漏洞 | 安全漏洞
malware | virus | viruses | Schadsoftware | programa malicioso | logiciel malveillant | 악성코드 | 멀웨어 | 바이러스 | マルウェア | ウイルス | 恶意软件 | 病毒 | 惡意軟體
attack | attacks | Angriff | Angriffe | ataque | ataques | attaque | attaques | 공격 | 攻撃 | 攻击 | 攻擊
data breach | data leak | Datenleck | Datenpanne | filtración de datos | brecha de datos | fuite de données | violation de données | 정보 유출 | 데이터 유출 | 情報漏洩 | 情報漏えい | 数据泄露 | 資料外洩
audit | audits | auditing | auditoría | auditorías | 보안 감사 | 감사 보고서 | 監査 | 审计 | 稽核 | 審計
audit log | audit logs | audit trail | Audit-Log | Prüfprotokoll | registro de auditoría | journal d'audit | 감사 로그 | 監査ログ | 审计日志 | 稽核日誌
compliance | Regelkonformität | Konformität | cumplimiento | cumplimiento normativo | conformité | 컴플라이언스 | 규정 준수 | コンプライアンス | 法令遵守 | 合规 | 合規
allowlist | whitelist | Positivliste | lista blanca | liste blanche | 화이트리스트 | ホワイトリスト | 白名单 | 白名單
blocklist | blacklist | denylist | Sperrliste | lista negra | liste noire | 블랙리스트 | ブラックリスト | 黑名单 | 黑名單

# ---------------------------------------------------------------- systems and software
operating system | operating systems | OS | Betriebssystem | sistema operativo | système d'exploitation | 운영체제 | 운영 체제 | オペレーティングシステム | 操作系统 | 作業系統
kernel | kernels | núcleo | noyau | 커널 | カーネル | 内核 | 內核
service | services | Dienst | Dienste | servicio | servicios | 서비스 | サービス | 服务 | 服務
daemon | daemons | demonio | démon | 데몬 | デーモン | 常駐プロセス | 守护进程
process | processes | Prozess | Prozesse | proceso | procesos | processus | 프로세스 | プロセス | 进程
thread | threads | hilo | hilos | 스레드 | 쓰레드 | スレッド | 线程 | 執行緒 | 線程
worker | workers | worker process | 워커 | ワーカー | 工作进程
job | jobs | batch job | Batchjob | ジョブ | 作业
cron job | cron jobs | cronjob | cronjobs | cron | crontab | scheduled task | scheduled tasks | geplante Aufgabe | tarea programada | tarea cron | tâche planifiée | tâche cron | 크론 | 크론잡 | 크론 작업 | 예약 작업 | cronジョブ | 定期実行 | 定期ジョブ | 定时任务 | 定時任務 | 計劃任務
batch | batch processing | Stapelverarbeitung | Batchverarbeitung | procesamiento por lotes | traitement par lots | 배치 | 일괄 처리 | バッチ | バッチ処理 | 一括処理 | 批处理 | 批量处理 | 批次
script | scripts | Skript | Skripte | 스크립트 | スクリプト | 脚本 | 腳本
command | commands | Befehl | Befehle | Kommando | comando | comandos | commande | commandes | 명령 | 명령어 | 커맨드 | コマンド | 命令 | 指令
shell | shells | 셸 | 쉘 | シェル
terminal | terminals | 터미널 | ターミナル | 终端 | 終端機
console | consoles | Konsole | consola | 콘솔 | コンソール | 控制台 | 主控台
package | packages | Paket | Pakete | paquete | paquetes | paquet | paquets | 패키지 | パッケージ | 软件包 | 套件
dependency | dependencies | Abhängigkeit | Abhängigkeiten | dependencia | dependencias | dépendance | dépendances | 의존성 | 종속성 | 依存関係 | 依存 | 依赖 | 依賴
library | libraries | Bibliothek | Bibliotheken | biblioteca | bibliotecas | librería | bibliothèque | bibliothèques | 라이브러리 | ライブラリ | 函式庫
virtual machine | virtual machines | VM | VMs | virtuelle Maschine | virtuelle Maschinen | máquina virtual | máquinas virtuales | machine virtuelle | machines virtuelles | 가상 머신 | 가상머신 | 仮想マシン | 虚拟机 | 虛擬機
hypervisor | hypervisors | hipervisor | hyperviseur | 하이퍼바이저 | ハイパーバイザー | ハイパーバイザ
container | containers | contenedor | contenedores | conteneur | conteneurs | 컨테이너 | コンテナ | コンテナー | 容器
image | images | Abbild | imagen | imágenes | 이미지 | イメージ | 镜像 | 鏡像
registry | registries | container registry | registro de contenedores | registre | 레지스트리 | レジストリ | 镜像仓库
cluster | clusters | clústeres | 클러스터 | クラスタ | クラスター | 集群 | 叢集
node | nodes | Knoten | nodo | nodos | nœud | nœuds | 노드 | ノード | 节点 | 節點
instance | instances | Instanz | Instanzen | instancia | instancias | 인스턴스 | インスタンス | 实例 | 實例
cloud | nube | nuage | 클라우드 | クラウド | 云端 | 雲端
region | regions | regiones | 리전 | リージョン | 区域
configuration | config | configure | configured | configurations | settings | setting | Konfiguration | konfigurieren | Einstellungen | Einstellung | configuración | configurar | ajustes | configurer | réglages | 설정 | 구성 | 컨피그 | 設定 | 構成 | コンフィグ | 配置 | 組態
config file | configuration file | config files | archivo de configuración | fichier de configuration | 설정 파일 | 설정파일 | 구성 파일 | 設定ファイル | 配置文件 | 設定檔
parameter | parameters | parámetro | parámetros | paramètre | paramètres | 파라미터 | 매개변수 | パラメータ | パラメーター | 参数 | 參數
environment variable | environment variables | env var | env vars | variable de entorno | variables de entorno | variable d'environnement | 환경 변수 | 환경변수 | 環境変数 | 环境变量 | 環境變數
default | defaults | default value | Standardwert | Voreinstellung | predeterminado | por defecto | valor por defecto | par défaut | valeur par défaut | 기본값 | 디폴트 | 既定 | 既定値 | デフォルト | 默认 | 預設
environment | environments | env | Umgebung | Umgebungen | entorno | entornos | ambiente | environnement | environnements | 환경 | 環境 | 环境
production | prod | production environment | Produktion | Produktivsystem | Produktivumgebung | producción | entorno de producción | environnement de production | 운영 환경 | 운영환경 | 운영계 | 프로덕션 | 상용 환경 | 本番 | 本番環境 | 生产环境 | 线上 | 生產環境
staging | staging environment | Staging-Umgebung | pre-production | preprod | préproduction | recette | 스테이징 | 검증 환경 | ステージング | 検証環境 | ステージング環境 | 预发布 | 预发环境
test environment | Testumgebung | entorno de pruebas | environnement de test | 테스트 환경 | 테스트환경 | テスト環境 | 测试环境 | 測試環境
development environment | dev environment | dev | entorno de desarrollo | environnement de développement | 개발 환경 | 개발환경 | 개발계 | 開発環境 | 开发环境 | 開發環境
source code | code | Quellcode | código fuente | código | code source | 소스 코드 | 소스코드 | 코드 | ソースコード | コード | 源代码 | 代码 | 原始碼 | 程式碼
API | APIs | Schnittstelle | Schnittstellen | 接口 | 介面
endpoint | endpoints | Endpunkt | Endpunkte | punto final | point de terminaison | 엔드포인트 | エンドポイント | 端点 | 端點
request | requests | Anfrage | Anfragen | solicitud | solicitudes | petición | peticiones | requête HTTP | 요청 | 리퀘스트 | リクエスト | 请求
response | responses | Antwort | Antworten | respuesta | respuestas | réponse | réponses | 응답 | 리스폰스 | レスポンス | 応答 | 响应 | 回應
status | state | Zustand | estado | état | statut | 상태 | ステータス | 状態 | 状态 | 狀態
message | messages | Nachricht | Nachrichten | Meldung | mensaje | mensajes | 메시지 | メッセージ | 消息 | 訊息
event | events | Ereignis | Ereignisse | evento | eventos | événement | événements | 이벤트 | イベント | 事件
notification | notifications | notify | notified | Benachrichtigung | Benachrichtigungen | benachrichtigen | notificación | notificaciones | notificar | notifier | 알림 | 통지 | 通知
queue | queues | Warteschlange | Warteschlangen | cola | colas | file d'attente | 대기열 | キュー | 队列 | 佇列
message queue | message queues | message broker | cola de mensajes | file de messages | 메시지큐 | メッセージキュー | 消息队列 | 訊息佇列
topic | topics | Thema | tema | tópico | 토픽 | トピック | 主题 | 主題
cache | caches | caching | Zwischenspeicher | memoria caché | 캐시 | キャッシュ | 缓存 | 快取
lock | locks | locking | Sperre | sperren | bloqueo | bloqueos | verrou | verrous | 잠금 | ロック | 锁定 | 鎖定
deadlock | deadlocks | Verklemmung | interbloqueo | bloqueo mutuo | interblocage | 교착 상태 | 교착상태 | 데드락 | デッドロック | 死锁 | 死結
connection | connections | connect | connected | connecting | Verbindung | Verbindungen | verbinden | verbunden | conexión | conexiones | conectar | conectado | connexion | connexions | connecter | connecté | 연결 | 접속 | 커넥션 | 接続 | コネクション | 连接 | 連線 | 連接
connection pool | connection pooling | Connection-Pool | pool de conexiones | pool de connexions | 커넥션풀 | コネクションプール | 接続プール | 连接池 | 連線池
connection refused | Verbindung abgelehnt | conexión rechazada | connexion refusée | 연결 거부 | 接続拒否 | 连接被拒绝 | 拒绝连接
timeout | timeouts | time-out | timed out | Zeitüberschreitung | tiempo de espera | tiempo de espera agotado | délai d'attente | délai dépassé | 타임아웃 | 시간 초과 | タイムアウト | 超时 | 逾時 | 超時
retry | retries | retried | erneut versuchen | reintentar | reintento | reintentos | réessayer | nouvelle tentative | 재시도 | リトライ | 再試行 | 重试 | 重試
rate limit | rate limiting | throttling | Ratenbegrenzung | Drosselung | limitación de velocidad | limitation de débit | 속도 제한 | 레이트 리밋 | レート制限 | 限流 | 速率限制
limit | limits | Grenze | Obergrenze | Begrenzung | límite | límites | 제한 | 한도 | 制限 | 上限 | リミット | 限制
quota | quotas | Kontingent | cuota | cuotas | 쿼터 | 할당량 | クォータ | 配额 | 配額
threshold | thresholds | Schwellenwert | Schwelle | Grenzwert | umbral | umbrales | seuil | seuils | 임계값 | 임계치 | 閾値 | 阈值 | 閾值

# ---------------------------------------------------------------- data and databases
database | databases | DB | Datenbank | Datenbanken | base de datos | bases de datos | base de données | bases de données | 데이터베이스 | データベース | 数据库 | 資料庫
schema | schemas | esquema | esquemas | 스키마 | スキーマ | 表结构
index | indexes | indices | Indizes | índice | 인덱스 | 색인 | インデックス | 索引
query | queries | Abfrage | Abfragen | consulta | consultas | requête | requêtes | 쿼리 | 질의 | クエリ | クエリー | 查询 | 查詢
slow query | slow queries | slow query log | langsame Abfrage | langsame Abfragen | consulta lenta | consultas lentas | requête lente | requêtes lentes | 슬로우 쿼리 | 슬로우쿼리 | 느린 쿼리 | スロークエリ | 慢查询 | 慢查詢
transaction | transactions | Transaktion | Transaktionen | transacción | transacciones | 트랜잭션 | トランザクション | 事务
replica | replicas | read replica | slave | replication | replicate | replicated | Replikat | Replikation | replizieren | replicación | replicar | réplique | répliques | répliquer | 레플리카 | 복제본 | 복제 | 레플리케이션 | レプリカ | レプリケーション | 副本 | 从库 | 主从复制 | 数据复制 | 複本
primary | primary server | master | Primärserver | primario | primaire | 프라이머리 | 마스터 | プライマリ | マスター | 主库 | 主节点 | 主服务器
standby | secondary | standby server | Standby-Server | secundario | en espera | secondaire | 스탠바이 | 세컨더리 | スタンバイ | セカンダリ | 备库 | 备用节点 | 备机
failover | fail over | failed over | switchover | switch over | Umschaltung | umschalten | conmutación por error | basculement | basculer | 페일오버 | 스위치오버 | 장애 조치 | 장애조치 | 절체 | フェイルオーバー | スイッチオーバー | 故障转移 | 主备切换
high availability | HA | Hochverfügbarkeit | alta disponibilidad | haute disponibilité | 고가용성 | 高可用性 | 高可用
redundancy | redundant | Redundanz | redundancia | redundante | redondance | redondant | 이중화 | 冗長化 | 冗長 | 冗余 | 備援
dump | dumps | database dump | volcado | 덤프 | ダンプ | 转储
data | Daten | datos | données | 데이터 | データ | 数据 | 資料

# ---------------------------------------------------------------- development and delivery
repository | repositories | repo | repos | Repositorium | repositorio | repositorios | dépôt | dépôts | 저장소 | 리포지토리 | 레포 | リポジトリ | レポジトリ | 仓库 | 代码仓库 | 儲存庫 | 存储库
branch | branches | Zweig | rama | ramas | branche | 브랜치 | ブランチ | 分支
commit | commits | committen | 커밋 | コミット | 提交
pull request | pull requests | merge request | merge requests | PR | MR | 풀리퀘스트 | 풀리퀘 | プルリクエスト | プルリク | マージリクエスト | 拉取请求 | 合并请求
merge | merged | merging | mergen | fusionar | fusionner | 병합 | 머지 | マージ | 合并 | 合併
code review | review | reviews | reviewed | Code-Review | revisión de código | revisión | revue de code | relecture | 코드 리뷰 | 코드리뷰 | 리뷰 | コードレビュー | レビュー | 代码审查 | 代码评审 | 審查
approval | approve | approved | Genehmigung | genehmigen | genehmigt | aprobación | aprobar | aprobado | approbation | approuver | approuvé | 승인 | 承認 | 批准 | 审批 | 核准
build | builds | 빌드 | ビルド | 构建 | 建置
pipeline | pipelines | canalización | 파이프라인 | パイプライン | 流水线 | 管線
CI | CI/CD | continuous integration | kontinuierliche Integration | integración continua | intégration continue | 지속적 통합 | 継続的インテグレーション | 持续集成 | 持續整合
continuous delivery | continuous deployment | entrega continua | despliegue continuo | livraison continue | déploiement continu | 지속적 배포 | 継続的デリバリー | 持续交付 | 持续部署
deployment | deployments | deploy | deployed | deploying | deployen | despliegue | despliegues | desplegar | desplegado | déploiement | déploiements | déployer | déployé | 배포 | 디플로이 | デプロイ | 部署 | 佈署
release | releases | released | Veröffentlichung | veröffentlichen | lanzamiento | publicación | 릴리스 | 릴리즈 | リリース | 发布 | 发版 | 發佈
go-live | go live | Inbetriebnahme | Livegang | puesta en producción | mise en production | 本番リリース | 本番反映 | 上线 | 上線
rollback | rollbacks | roll back | rolled back | revert | reverted | zurückrollen | revertir | reversión | marcha atrás | retour arrière | revenir en arrière | 롤백 | ロールバック | 切戻 | 切り戻し | 戻す | 回滚 | 回退
rollout | rollouts | roll out | rolled out | ausrollen | despliegue gradual | déploiement progressif | 롤아웃 | 점진적 배포 | ロールアウト | 段階的リリース | 逐步发布 | 推出
canary | canary release | canary deployment | Canary-Release | Canary-Deployment | despliegue canario | déploiement canari | 카나리 | 카나리 배포 | カナリア | カナリアリリース | 金丝雀发布 | 灰度发布 | 金絲雀部署
feature flag | feature flags | feature toggle | feature toggles | Feature-Flag | Feature-Toggle | 기능 플래그 | 피처 플래그 | フィーチャーフラグ | 機能フラグ | 功能开关 | 特性开关
test | tests | testing | tested | testen | getestet | prueba | pruebas | probar | tester | testé | 테스트 | 시험 | テスト | 試験 | 测试 | 測試
load test | load testing | stress test | Lasttest | prueba de carga | prueba de estrés | test de charge | 부하 테스트 | 부하테스트 | 負荷テスト | 压力测试 | 压测 | 壓力測試
benchmark | benchmarks | prueba de rendimiento | 벤치마크 | ベンチマーク | 基准测试 | 基準測試
version | versions | Versionen | 버전 | バージョン | 版本
changes | change | modify | modified | edit | edited | ändern | geändert | Änderung | Änderungen | cambiar | cambio | cambios | modificar | modifier | modification | changement | changements | 변경 | 変更 | 修改 | 变更 | 變更
change request | change requests | solicitud de cambio | demande de changement | 변경 요청 | 変更要求 | 变更申请 | 变更请求
hotfix | hotfixes | hot fix | 핫픽스 | ホットフィックス | 热修复
bug | bugs | bogue | bogues | 버그 | バグ | 缺陷
fix | fixes | fixed | bugfix | patch | patches | patched | beheben | Behebung | Korrektur | parche | parches | corrección | corregir | arreglar | correctif | correctifs | corriger | 수정 | 패치 | 픽스 | 修正 | パッチ | 修复 | 补丁 | 修補
upgrade | upgrades | upgraded | upgrading | mise à niveau | 업그레이드 | アップグレード | 升级 | 升級
update | updates | updated | updating | aktualisieren | Aktualisierung | actualizar | actualización | actualizaciones | mettre à jour | mise à jour | mises à jour | 업데이트 | アップデート | 更新
downgrade | downgrades | downgraded | rétrograder | 다운그레이드 | ダウングレード | 降级 | 降級
migration | migrations | migrate | migrated | migrating | migrieren | migración | migraciones | migrar | migrer | 마이그레이션 | 이관 | マイグレーション | 移行 | 迁移
debug | debugging | debugged | debuggen | depurar | depuración | déboguer | débogage | 디버그 | 디버깅 | デバッグ | 调试 | 除錯 | 調試
stack trace | stack traces | stacktrace | traza de pila | pile d'appels | 스택 트레이스 | スタックトレース | 堆栈跟踪 | 调用栈
exit code | exit status | return code | Exit-Code | Rückgabewert | código de salida | code de sortie | 종료 코드 | 終了コード | 退出码 | 返回码

# ---------------------------------------------------------------- monitoring, logging, reliability
monitoring | monitor | monitored | Überwachung | überwachen | überwacht | monitorización | monitoreo | supervisión | superviser | surveillance | surveiller | 모니터링 | 감시 | モニタリング | 監視 | 监控 | 監控
metric | metrics | Metrik | Metriken | Kennzahl | Kennzahlen | métrica | métricas | métrique | métriques | 메트릭 | 지표 | メトリクス | メトリック | 指標 | 指标
alert | alerts | alerting | Alarm | Alarme | Alarmierung | alerta | alertas | alarma | alarmas | alerte | alertes | 알람 | 얼럿 | 경보 | アラート | 警報 | 告警 | 报警 | 警报
dashboard | dashboards | panel | tablero | tableau de bord | 대시보드 | ダッシュボード | 仪表盘 | 仪表板 | 儀表板
health check | health checks | healthcheck | healthchecks | comprobación de estado | chequeo de salud | vérification de l'état | contrôle de santé | 헬스 체크 | 헬스체크 | ヘルスチェック | 死活監視 | 健康检查 | 健康檢查
log | logs | logging | log file | log files | logfile | Logdatei | Protokoll | Protokolldatei | protokollieren | journaux | fichier journal | fichier de log | 로그 | 로그 파일 | 로그파일 | ログ | ログファイル | 日志 | 日志文件
log rotation | logrotate | Logrotation | Log-Rotation | rotación de logs | rotation des logs | rotation des journaux | 로그 로테이션 | ログローテーション | 日志轮转 | 日志切割
retention | retention period | Aufbewahrung | Aufbewahrungsfrist | Vorhaltezeit | retención | período de retención | durée de conservation | 보존 | 보존 기간 | 보관 기간 | 保持期間 | 保存期間 | リテンション | 保留期限 | 保留时间 | 保存期限
error | errors | Fehler | errores | erreur | erreurs | 에러 | 오류 | エラー | 错误 | 报错 | 錯誤
error message | error messages | Fehlermeldung | Fehlermeldungen | mensaje de error | message d'erreur | 에러 메시지 | 오류 메시지 | エラーメッセージ | 错误信息 | 报错信息 | 錯誤訊息
exception | exceptions | Ausnahme | excepción | 예외 | 例外
warning | warnings | Warnung | Warnungen | advertencia | aviso | avertissement | 경고 | 警告 | ワーニング
crash | crashes | crashed | Absturz | abgestürzt | abstürzen | plantage | planté | 크래시 | 비정상 종료 | 비정상종료 | クラッシュ | 異常終了 | 崩溃 | 崩潰
latency | latencies | Latenz | Latenzzeit | latencia | latence | 지연 | 지연 시간 | 레이턴시 | レイテンシ | レイテンシー | 遅延 | 延迟 | 延遲
response time | response times | Reaktionszeit | tiempo de respuesta | temps de réponse | 응답 시간 | 응답시간 | 応答時間 | レスポンスタイム | 响应时间 | 回應時間
throughput | Durchsatz | débit | 처리량 | スループット | 吞吐量
performance | Leistung | rendimiento | desempeño | performances | 성능 | 퍼포먼스 | パフォーマンス | 性能 | 效能
uptime | tiempo de actividad | temps de fonctionnement | 가동 시간 | 업타임 | 稼働時間 | アップタイム | 运行时间 | 正常运行时间
availability | available | Verfügbarkeit | verfügbar | disponibilidad | disponible | disponibilité | 가용성 | 可用性 | 利用可能
SLA | SLAs | service level agreement | acuerdo de nivel de servicio | accord de niveau de service | 서비스 수준 협약 | サービスレベル契約 | 服务等级协议 | 服務水準協議
SLO | SLOs | service level objective | objetivo de nivel de servicio | objectif de niveau de service | 서비스 수준 목표 | サービスレベル目標 | 服务等级目标
priority | priorities | Priorität | Prioritäten | prioridad | prioridades | priorité | priorités | 우선순위 | 優先度 | 優先順位 | 优先级 | 優先級
severity | Schweregrad | severidad | gravedad | gravité | sévérité | 심각도 | 重大度 | 深刻度 | 严重程度 | 严重性 | 嚴重性
ticket | tickets | 티켓 | チケット | 工单 | 工單

# ---------------------------------------------------------------- backup and recovery
backup | backups | back up | backed up | Sicherung | Sicherungen | Datensicherung | sichern | copia de seguridad | copias de seguridad | respaldo | respaldos | respaldar | sauvegarde | sauvegardes | sauvegarder | 백업 | バックアップ | 备份 | 備份
full backup | full backups | Vollsicherung | Komplettsicherung | copia de seguridad completa | copia completa | sauvegarde complète | 전체 백업 | 풀백업 | フルバックアップ | 完全バックアップ | 全量备份 | 完整備份
incremental backup | incremental backups | inkrementelle Sicherung | copia incremental | sauvegarde incrémentielle | 증분 백업 | 増分バックアップ | 增量备份
snapshot | snapshots | Momentaufnahme | instantánea | instantáneas | instantané | instantanés | 스냅샷 | スナップショット | 快照
restore | restored | restoring | restores | restoration | wiederherstellen | wiederhergestellt | Wiederherstellung | restaurar | restauración | restaurer | restauration | 복원 | 리스토어 | リストア | 復元 | 还原 | 還原
recovery | recover | recovered | recovering | recuperación | recuperar | récupération | récupérer | rétablissement | 복구 | 리커버리 | 復旧 | リカバリ | リカバリー | 恢复 | 恢復 | 回復
disaster recovery | Notfallwiederherstellung | recuperación ante desastres | reprise après sinistre | plan de reprise d'activité | 재해 복구 | 재해복구 | 災害復旧 | ディザスタリカバリ | ディザスタリカバリー | 灾难恢复 | 灾备 | 容灾 | 災難復原
archive | archives | archiving | archived | Archiv | archivieren | archivar | archivado | archiver | 아카이브 | 보관 | アーカイブ | 归档 | 歸檔 | 存档
compression | compress | compressed | Komprimierung | komprimieren | compresión | comprimir | compresser | 압축 | 圧縮 | 压缩 | 壓縮

# ---------------------------------------------------------------- licences, money, vendors
license | licence | licenses | licences | Lizenz | Lizenzen | licencia | licencias | 라이선스 | 라이센스 | ライセンス | 许可证
invoice | invoices | Rechnung | Rechnungen | factura | facturas | facture | factures | 인보이스 | 청구서 | 請求書 | インボイス | 发票 | 發票
billing | Abrechnung | 과금 | 청구 | 課金 | 计费 | 账单
cost | costs | Kosten | coste | costes | costo | costos | coût | coûts | 비용 | コスト | 費用 | 成本 | 费用
budget | budgets | presupuesto | presupuestos | 예산 | 予算 | 预算 | 預算
price | prices | pricing | Preis | Preise | precio | precios | prix | tarif | tarifa | 가격 | 요금 | 価格 | 料金 | 价格 | 價格
vendor | vendors | supplier | suppliers | Anbieter | Lieferant | proveedor | proveedores | fournisseur | fournisseurs | 벤더 | 공급업체 | 업체 | ベンダー | 業者 | 供应商 | 厂商 | 供應商
payment | payments | Zahlung | Zahlungen | Bezahlung | pago | pagos | paiement | paiements | 결제 | 지불 | 支払い | 決済 | 支付 | 付款
deposit | deposits | down payment | Anzahlung | Anzahlungen | depósito | depósitos | acompte | acomptes | 보증금 | 예약금 | 선금 | デポジット | 前金 | 手付金 | 定金 | 订金 | 押金
refund | refunds | Rückerstattung | Erstattung | reembolso | reembolsos | remboursement | 환불 | 返金 | 払い戻し | 退款
subscription | subscriptions | Abonnement | Abonnements | suscripción | suscripciones | 구독 | サブスクリプション | 订阅 | 訂閱
discount | discounts | Rabatt | Rabatte | descuento | descuentos | remise | 할인 | 割引 | 折扣
receipt | receipts | Quittung | Beleg | recibo | recibos | reçu | 영수증 | 領収書 | レシート | 收据 | 收據
contract | contracts | Vertrag | Verträge | contrato | contratos | contrat | contrats | 계약 | 계약서 | 契約 | 契約書 | 合同 | 合約

# ---------------------------------------------------------------- products with transliterations
Kubernetes | k8s | 쿠버네티스 | クバネティス
Docker | 도커 | ドッカー
Redis | 레디스
Postgres | PostgreSQL | 포스트그레스 | 포스트그레 | 포스트그레SQL | 포스트그레스큐엘 | ポスグレ | ポストグレス
nginx | 엔진엑스 | エンジンエックス
Apache | 아파치 | アパッチ
Linux | 리눅스 | リナックス
Windows | 윈도우 | 윈도우즈 | ウィンドウズ
Elasticsearch | 엘라스틱서치 | エラスティックサーチ
Kafka | 카프카 | カフカ
Jenkins | 젠킨스 | ジェンキンス
Ansible | 앤서블 | アンサブル
Terraform | 테라폼 | テラフォーム
Prometheus | 프로메테우스 | プロメテウス
Grafana | 그라파나 | グラファナ
Zabbix | 자빅스 | ザビックス

# ---------------------------------------------------------------- actions
restart | restarts | restarted | restarting | neu starten | Neustart | neustarten | neu gestartet | reiniciar | reinicio | reiniciado | redémarrer | redémarrage | redémarré | 재시작 | 재기동 | 리스타트 | 再起動 | 重启 | 重新启动 | 重啟 | 重新啟動
reboot | reboots | rebooted | rebooting | 리부트 | 재부팅 | リブート
reload | reloaded | neu laden | recargar | recharger | 리로드 | 재로드 | リロード | 重新加载 | 重载
start | started | starting | starten | gestartet | iniciar | arrancar | arranque | démarrer | démarrage | lancer | 시작 | 기동 | 스타트 | 起動 | 開始 | 启动 | 啟動
stop | stopped | stopping | stoppen | gestoppt | anhalten | detener | parar | detenido | arrêter | arrêt | arrêté | 중지 | 정지 | 스톱 | 停止
shutdown | shut down | power off | herunterfahren | ausschalten | apagar | apagado | éteindre | 종료 | 셧다운 | 전원 끄기 | シャットダウン | 電源断 | 关机 | 關機
kill | killed | beenden | abbrechen | matar | tuer | 강제 종료 | 강제종료 | 強制終了 | 杀掉 | 杀死 | 強制結束
run | runs | execute | executed | execution | ausführen | Ausführung | ejecutar | ejecución | exécuter | 실행 | 実行 | 执行 | 執行
install | installed | installing | installation | installieren | installiert | instalar | instalación | instalado | installer | 설치 | 인스톨 | インストール | 安装 | 安裝
reinstall | reinstalled | neu installieren | Neuinstallation | reinstalar | réinstaller | 재설치 | 重新安装 | 重裝
uninstall | uninstalled | deinstallieren | desinstalar | désinstaller | 언인스톨 | 설치 제거 | アンインストール | 卸载 | 解除安裝
provisioning | provision | provisioned | Provisionierung | aprovisionamiento | aprovisionar | provisionnement | 프로비저닝 | プロビジョニング | 开通 | 置备
create | created | creating | erstellen | erstellt | anlegen | crear | creado | créer | créé | 생성 | 作成 | 创建 | 建立
add | added | adding | hinzufügen | hinzugefügt | añadir | agregar | ajouter | ajouté | 추가 | 追加 | 添加 | 新增
remove | removed | removal | delete | deleted | deletion | löschen | gelöscht | entfernen | entfernt | eliminar | eliminado | borrar | borrado | supprimer | supprimé | suppression | effacer | 삭제 | 제거 | 削除 | 除去 | 删除 | 刪除 | 移除
replace | replaced | replacement | ersetzen | austauschen | Austausch | tauschen | reemplazar | sustituir | reemplazo | sustitución | remplacer | remplacement | 교체 | 교환 | 대체 | 交換 | 置換 | 更换 | 替换 | 更換
renew | renewed | renewal | renewing | erneuern | erneuert | Erneuerung | renovar | renovación | renovado | renouveler | renouvellement | renouvelé | 갱신 | 续期 | 续订 | 續期
rotate | rotated | rotation | rotating | rotieren | rotar | rotación | 로테이션 | ローテーション | 轮换 | 輪換
expire | expired | expires | expiry | expiration | expiring | ablaufen | abgelaufen | Ablaufdatum | caducar | caducado | caducidad | vencer | vencido | vencimiento | expirer | 만료 | 만료일 | 만료됨 | 有効期限 | 失効 | 过期 | 到期 | 過期 | 失效
move | moved | moving | relocation | verschieben | verschoben | umziehen | Umzug | mover | trasladar | traslado | déplacer | déménager | déménagement | 이동 | 移動 | 移动 | 搬迁
copy | copies | copied | kopieren | Kopie | kopiert | copiar | copia | copier | copie | 복사 | コピー | 複製 | 复制 | 拷贝
clone | cloned | cloning | klonen | clonar | cloner | 클론 | クローン | 克隆
sync | synced | synchronize | synchronise | synchronization | synchronisation | synchronisieren | Synchronisierung | sincronizar | sincronización | synchroniser | 동기화 | 싱크 | 同期 | 同步
time synchronization | time sync | NTP | NTP server | Zeitsynchronisation | NTP-Server | sincronización horaria | servidor NTP | synchronisation de l'heure | serveur NTP | 시간 동기화 | NTP 서버 | 時刻同期 | NTPサーバー | 时间同步 | NTP服务器 | 時間同步
time zone | timezone | time zones | timezones | Zeitzone | Zeitzonen | zona horaria | fuseau horaire | 시간대 | 타임존 | タイムゾーン | 时区 | 時區
clock | system clock | system time | Uhr | Systemzeit | Systemuhr | reloj | horloge | 시계 | 시스템 시간 | 時計 | システム時刻 | 时钟 | 系统时间 | 時鐘
clock skew | clock drift | time drift | Zeitabweichung | desfase horario | dérive d'horloge | 시간 오차 | 時刻ずれ | 时钟漂移 | 时间偏差
resize | resized | expand | expanded | extend | extended | grow | enlarge | vergrößern | erweitern | Erweiterung | ampliar | ampliación | extender | redimensionar | agrandir | étendre | redimensionner | 확장 | 증설 | 용량 증설 | 拡張 | 増設 | 拡大 | 扩容 | 扩展 | 擴充
shrink | shrunk | verkleinern | reducir | réduire | 축소 | 縮小 | 缩容 | 缩小
scaling | scale up | scale out | scale-out | scale-up | autoscaling | Skalierung | skalieren | hochskalieren | escalado | escalado automático | mise à l'échelle | 스케일 아웃 | 스케일업 | 스케일링 | オートスケール | スケールアウト | スケールアップ | スケーリング | 扩缩容 | 水平扩展 | 弹性伸缩
clean up | cleanup | clean-up | cleaned up | aufräumen | aufgeräumt | Bereinigung | bereinigen | limpiar | limpieza | nettoyer | nettoyage | 정리 | 청소 | クリーンアップ | 掃除 | 整理 | 清理
purge | purged | flush | flushed | purgar | purger | vider | 퍼지 | 비우기 | パージ | 清空
mount | mounted | mounting | mounten | einhängen | eingehängt | montar | montaje | monter | 마운트 | マウント | 挂载 | 掛載
unmount | umount | unmounted | aushängen | unmounten | desmontar | démonter | 언마운트 | マウント解除 | アンマウント | 取消挂载
format | formatted | formatting | formatieren | formatiert | formatear | formater | 포맷 | フォーマット | 格式化
reset | resets | zurücksetzen | restablecer | réinitialiser | réinitialisation | 초기화 | 리셋 | リセット | 初期化 | 重置 | 初始化
upload | uploaded | hochladen | subir | téléverser | 업로드 | アップロード | 上传 | 上傳
download | downloaded | downloaden | descargar | télécharger | 다운로드 | ダウンロード | 下载 | 下載
import | imported | importieren | 가져오기 | 임포트 | インポート | 导入 | 匯入
export | exported | exportieren | exportar | exporter | 내보내기 | 익스포트 | エクスポート | 导出 | 匯出
redirect | redirects | redirection | Umleitung | umleiten | redirección | redirigir | rediriger | 리다이렉트 | 리디렉션 | リダイレクト | 重定向
check | checked | verify | verified | verification | confirm | confirmed | confirmation | prüfen | überprüfen | Überprüfung | Prüfung | kontrollieren | bestätigen | Bestätigung | verificar | comprobar | verificación | confirmar | vérifier | contrôler | contrôle | confirmer | 확인 | 검증 | 체크 | 確認 | チェック | 検証 | 检查 | 验证 | 确认 | 檢查 | 驗證
investigate | investigation | analyze | analyse | analysis | untersuchen | Untersuchung | analysieren | investigar | investigación | analizar | análisis | enquêter | enquête | 조사 | 분석 | 調査 | 分析 | 调查 | 調查
troubleshooting | troubleshoot | Fehlersuche | Fehlerbehebung | solución de problemas | resolución de problemas | dépannage | résolution de problèmes | 트러블슈팅 | 문제 해결 | トラブルシューティング | トラブル対応 | 故障排除 | 排障 | 排查 | 疑難排解
measure | measured | measurement | measurements | messen | gemessen | Messung | medir | medición | mesurer | mesure | 측정 | 計測 | 測定 | 测量 | 量测
compare | compared | comparison | vergleichen | Vergleich | comparar | comparación | comparer | comparaison | 비교 | 比較 | 比较 | 对比
tune | tuning | tuned | optimize | optimise | optimization | optimisation | optimized | optimieren | Optimierung | optimizar | optimización | optimiser | 튜닝 | 최적화 | チューニング | 最適化 | 调优 | 优化 | 最佳化
choose | chose | chosen | select | selected | selection | choice | wählen | auswählen | Auswahl | elegir | seleccionar | elección | choisir | choix | sélectionner | 선택 | 選択 | 選定 | 选择 | 選擇 | 选型
adopt | adopted | adoption | introduce | einführen | Einführung | adoptar | adopción | adopter | 도입 | 채택 | 導入 | 採用 | 采用 | 引入
keep | kept | retain | behalten | beibehalten | mantener | conservar | garder | conserver | 유지 | 維持 | 保持 | 保留
drop | dropped | discard | discarded | abandon | abandoned | verwerfen | verworfen | descartar | abandonar | abandonner | rejeter | 폐기 | 破棄 | 放弃 | 丢弃 | 舍弃
decommission | decommissioned | decommissioning | retire | retired | außer Betrieb nehmen | stilllegen | Stilllegung | Außerbetriebnahme | dar de baja | retirar | décommissionner | mise hors service | 서비스 종료 | 폐기 처리 | 撤去 | 廃止 | 下线 | 下線 | 退役
write down | note down | aufschreiben | notieren | anotar | apuntar | noter | 기록 | 적어두기 | 記録 | 记录 | 記錄
handover | hand over | handoff | hand-off | Übergabe | übergeben | traspaso | traspasar | passation | passation de service | 인수인계 | 인계 | 引継 | 引き継ぎ | 交接 | 移交
escalate | escalated | escalation | escalations | eskalieren | Eskalation | escalamiento | escalación | 에스컬레이션 | 상부 보고 | エスカレーション | エスカレ | 上报 | 上報
assign | assigned | assignment | allocate | allocation | zuweisen | Zuweisung | zuordnen | asignar | asignación | assigner | attribuer | attribution | 할당 | 배정 | 割当 | アサイン | 分配 | 指派
grant | granted | gewähren | erteilen | otorgar | conceder | accorder | 부여 | 付与 | 授予 | 赋予
revoke | revoked | revocation | widerrufen | entziehen | revocar | révoquer | 회수 | 撤销 | 吊销 | 撤銷
disable | disabled | deaktivieren | deaktiviert | abschalten | desactivar | desactivado | deshabilitar | deshabilitado | désactiver | désactivé | 비활성화 | 비활성 | 無効化 | 無効 | 禁用 | 停用
enable | enabled | aktivieren | aktiviert | einschalten | activar | activado | habilitar | habilitado | activer | activé | 활성화 | 有効化 | 有効 | 启用 | 啟用
block | blocked | blocking | blockieren | blockiert | bloquear | bloqueado | bloquer | bloqué | 차단 | 블록 | ブロック | 遮断 | 阻止 | 屏蔽 | 拦截
allow | allowed | permit | permitted | erlauben | erlaubt | zulassen | permitir | permitido | 허용 | 許可 | 允许 | 允許 | 放行
deny | denied | access denied | permission denied | verweigert | Zugriff verweigert | denegar | denegado | acceso denegado | refusé | accès refusé | 거부 | 접근 거부 | 拒否 | アクセス拒否 | 拒绝 | 拒絕 | 拒绝访问
unlock | unlocked | entsperren | entsperrt | desbloquear | déverrouiller | débloquer | 잠금 해제 | ロック解除 | 解锁 | 解鎖
open | opened | öffnen | geöffnet | abrir | abierto | ouvrir | ouvert | 열기 | オープン | 打开 | 開啟
close | closed | schließen | geschlossen | cerrar | cerrado | fermer | fermé | 닫기 | 클로즈 | クローズ | 关闭 | 關閉
disconnect | disconnected | disconnection | trennen | getrennt | desconectar | desconectado | déconnecter | déconnexion | déconnecté | 연결 끊김 | 끊김 | 切断 | 断开 | 断开连接 | 斷開
fail | failed | failure | failures | failing | fehlschlagen | fehlgeschlagen | Fehlschlag | fallar | falló | fallido | échouer | échec | échoué | 실패 | 失敗 | 失败
share | shared | sharing | teilen | geteilt | compartir | compartido | partager | partagé | 공유 | 共有 | 共享 | 分享

# ---------------------------------------------------------------- states and qualities
full | disk full | voll | vollgelaufen | Platte voll | lleno | disco lleno | plein | saturé | disque plein | 용량 부족 | 満杯 | 容量不足 | ディスクフル | 已满 | 磁盘已满 | 磁盘满了
slow | slowness | slower | slowly | langsam | lento | lenta | lentitud | lent | lenteur | 느림 | 느린 | 느려짐 | 低速 | 缓慢 | 变慢 | 卡顿 | 緩慢
fast | faster | quick | schnell | rápido | rápida | rapide | 빠름 | 빠른 | 高速 | 快速
broken | defective | faulty | kaputt | defekt | roto | averiado | defectuoso | cassé | défectueux | en panne | hors service | 고장 | 고장난 | 불량 | 故障 | 不良 | 坏掉
corrupted | corrupt | corruption | beschädigt | korrupt | dañado | corrupto | corrompido | corrompu | 손상 | 깨짐 | 破損 | 损坏 | 损毁 | 損壞
down | offline | unreachable | unavailable | nicht erreichbar | unerreichbar | nicht verfügbar | caído | inaccesible | no disponible | fuera de línea | hors ligne | injoignable | inaccessible | indisponible | 다운 | 오프라인 | 접속 불가 | 사용 불가 | ダウン | オフライン | 到達不能 | 利用不可 | 宕机 | 离线 | 不可用 | 无法访问 | 離線
online | en línea | en ligne | 온라인 | オンライン | 在线 | 線上
running | läuft | in Betrieb | en ejecución | funcionando | en fonctionnement | 실행중 | 가동중 | 稼働中 | 実行中 | 运行中 | 運行中
stuck | hung | hang | hanging | frozen | freeze | hängt | hängen geblieben | eingefroren | colgado | congelado | figé | 멈춤 | 먹통 | 프리즈 | ハング | フリーズ | 卡住 | 卡死 | 挂起 | 無回應
healthy | normal | gesund | saludable | sain | 정상 | 正常
abnormal | anomaly | anomalies | anomalous | Anomalie | anomalía | 비정상 | 異常 | 异常
stable | stability | stabil | Stabilität | estable | estabilidad | stabilité | 안정 | 안정성 | 安定 | 安定性 | 稳定 | 稳定性 | 穩定
unstable | flaky | instability | instabil | inestable | instable | 불안정 | 不安定 | 不稳定 | 不穩定
missing | fehlt | fehlend | falta | faltante | manquant | manque | 누락 | 빠짐 | 欠落 | 欠損 | 缺失 | 遗漏 | 缺少
not found | nicht gefunden | no encontrado | introuvable | non trouvé | 未找到 | 找不到
lost | loss | data loss | verloren | Verlust | perdido | pérdida | pérdida de datos | perdu | perte | perte de données | 유실 | 손실 | 분실 | 데이터 유실 | 紛失 | 消失 | 損失 | データ消失 | 丢失 | 数据丢失 | 遺失
duplicate | duplicates | duplicated | Duplikat | doppelt | duplicado | doublon | dupliqué | 중복 | 重複 | 重复
outdated | out of date | obsolete | deprecated | deprecation | stale | veraltet | abgekündigt | desactualizado | obsoleto | périmé | déprécié | 구식 | 지원 중단 | 非推奨 | 陳腐化 | 过时 | 弃用 | 已弃用 | 過時 | 棄用
end of life | EOL | end of support | unsupported | nicht unterstützt | fin de vida | fin de soporte | sin soporte | fin de vie | fin de support | non supporté | 지원 종료 | サポート終了 | 停止支持 | 停止维护 | 停止維護
superseded | supersede | replaced by | abgelöst | ersetzt durch | reemplazado por | sustituido por | remplacé par | 대체됨 | 取代 | 已被取代
latest | newest | most recent | neueste | aktuellste | más reciente | plus récent | dernière version | 최신 | 最新 | 最新版 | 最新版本
old | older | alt | alte | ältere | viejo | antiguo | ancien | ancienne | vieux | 오래된 | 예전 | 旧版 | 旧的
new | newer | neu | neue | nuevo | nueva | nouveau | nouvelle | 새로운 | 신규 | 新規 | 新的 | 新版
large | big | huge | groß | große | grande | gros | 대용량 | 대형 | 大容量 | 大規模 | 大型 | 巨大
small | tiny | klein | kleine | pequeño | pequeña | petit | petite | 작은 | 소형 | 소규모 | 小規模 | 小型
high | hoch | hohe | hoher | alto | alta | élevé | élevée | haut | 높음 | 높은 | 较高 | 偏高 | 过高 | 過高
low | niedrig | gering | bajo | baja | faible | bas | basse | 낮음 | 낮은 | 较低 | 偏低 | 过低 | 過低
safe | safely | safety | sicher | seguro | sans risque | 안전 | 안전한 | 安全
critical | kritisch | crítico | crítica | critique | 치명적 | 크리티컬 | 심각 | 致命的 | クリティカル | 重大 | 严重 | 嚴重
urgent | dringend | urgente | 긴급 | 緊急 | 至急 | 紧急
important | wichtig | importante | 중요 | 重要
required | mandatory | erforderlich | Pflicht | obligatorio | requerido | obligatoire | requis | 필수 | 必須 | 必需 | 必须 | 必填
temporary | temporarily | vorübergehend | temporär | temporal | temporaire | provisoire | 임시 | 一時的 | 暫定 | 临时 | 暫時 | 臨時
internal | intern | interno | interne | 내부 | 内部 | 內部
external | extern | externo | externe | 외부 | 外部
remote | remoto | distant | à distance | 원격 | リモート | 遠隔 | 远程 | 遠端
read-only | readonly | schreibgeschützt | nur lesend | solo lectura | de solo lectura | lecture seule | 읽기 전용 | 只读 | 唯讀
compatible | compatibility | incompatible | Kompatibilität | kompatibel | compatibilidad | compatibilité | 호환성 | 호환 | 互換性 | 互換 | 兼容性 | 兼容 | 相容性
success | successful | succeeded | successfully | erfolgreich | Erfolg | éxito | exitoso | succès | réussi | 성공 | 成功
completed | complete | finished | abgeschlossen | erledigt | fertig | completado | terminé | achevé | 완료 | 完了 | 完成 | 已完成
in progress | ongoing | in Bearbeitung | laufend | en curso | en progreso | en cours | 진행중 | 対応中 | 進行中 | 进行中 | 处理中
pending | waiting | ausstehend | pendiente | en attente | 대기중 | 保留中 | 未対応 | 待处理 | 等待中
resolved | gelöst | behoben | resuelto | résolu | 해결됨 | 已解决 | 已解決
manual | manually | by hand | manuell | von Hand | manualmente | manuellement | à la main | 수동 | 수동으로 | 手動 | 手作業 | 手动
automatic | automatically | automated | automation | automatisch | automatisiert | Automatisierung | automático | automatizado | automatización | automatique | automatisé | automatisation | 자동 | 자동화 | 自動 | 自動化 | 自动 | 自动化
daily | every day | täglich | diario | diaria | diariamente | quotidien | quotidienne | chaque jour | 매일 | 일일 | 일간 | 毎日 | 日次 | 每天 | 每日
weekly | every week | wöchentlich | semanal | semanalmente | hebdomadaire | 매주 | 주간 | 毎週 | 週次 | 每周 | 每週
yearly | annual | annually | jährlich | anual | anualmente | annuel | annuelle | 매년 | 연간 | 毎年 | 年次 | 每年

# ---------------------------------------------------------------- people, teams, workplace
colleague | colleagues | coworker | coworkers | Kollege | Kollegin | Kollegen | compañero | compañera | colega | colegas | collègue | collègues | 동료 | 同僚 | 同事
manager | managers | boss | team lead | Vorgesetzter | Vorgesetzte | Chef | Teamleiter | jefe | gerente | 매니저 | 팀장 | 상사 | マネージャー | マネージャ | 上司 | 经理 | 主管 | 领导 | 經理
on-call | on call | oncall | on-call duty | Bereitschaft | Rufbereitschaft | Bereitschaftsdienst | guardia | astreinte | 온콜 | 당직 | オンコール | 当番 | 当直 | 值班 | 待命
on-call engineer | on-call person | ingeniero de guardia | ingénieur d'astreinte | 당직자 | 온콜 엔지니어 | 当番者 | 值班人员 | 值班工程师
support | helpdesk | help desk | service desk | Kundendienst | soporte | soporte técnico | mesa de ayuda | assistance | support technique | 서포트 | 헬프데스크 | 고객 지원 | サポート | ヘルプデスク | 技术支持 | 客服 | 服务台
developer | developers | Entwickler | Entwicklerin | desarrollador | desarrolladores | développeur | développeurs | 개발자 | 開発者 | デベロッパー | 开发者 | 开发人员 | 開發者 | 程序员
engineer | engineers | Ingenieur | Techniker | ingeniero | ingenieros | ingénieurs | 엔지니어 | エンジニア | 技術者 | 工程师 | 工程師
operations | ops | IT operations | IT-Betrieb | operaciones | exploitation | 운영 | 운영팀 | 運用 | 運用保守 | 运维 | 運維
operator | operators | Betreiber | operador | operadores | 운영자 | 오퍼레이터 | オペレーター | 運用担当者 | 操作员 | 运维人员
maintenance | Wartung | mantenimiento | 유지보수 | 점검 | 정기 점검 | メンテナンス | 保守 | 保守作業 | 维护 | 維護
office | offices | Büro | oficina | oficinas | bureau | bureaux | 사무실 | オフィス | 事務所 | 办公室 | 辦公室
remote work | working from home | home office | WFH | Homeoffice | teletrabajo | télétravail | 재택근무 | 재택 | 在宅勤務 | リモートワーク | テレワーク | 远程办公 | 居家办公 | 遠端工作
vacation | annual leave | time off | PTO | Urlaub | vacaciones | congé | congés | vacances | 휴가 | 연차 | 休暇 | 有給 | 有休 | 休假 | 年假 | 请假 | 請假
sick leave | sick | krank | Krankmeldung | krankgeschrieben | enfermo | baja médica | baja por enfermedad | malade | arrêt maladie | 병가 | 病欠 | 病気 | 病假 | 生病
overtime | overtime pay | Überstunden | Mehrarbeit | horas extra | horas extras | heures supplémentaires | 초과 근무 | 야근 | 잔업 | 残業 | 時間外労働 | 加班 | 加班费
compensation | on-call allowance | allowance | Zulage | Vergütung | compensación | indemnité | prime d'astreinte | 수당 | 당직 수당 | 보상 | 手当 | 待機手当 | 補償 | 补偿 | 值班补贴 | 津贴
time off in lieu | comp time | Freizeitausgleich | día compensatorio | repos compensateur | 대체 휴무 | 대휴 | 代休 | 振替休日 | 调休 | 補休
"""
