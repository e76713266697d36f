# "Text classification with the torchtext library" without torchtext: a whitespace tokenizer, a vocabulary
# built from counted tokens with <unk> as the default index, text_pipeline / label_pipeline, collate_batch
# that concatenates the token ids and builds the offsets with cumsum, TextClassificationModel (nn.EmbeddingBag
# in "mean" mode + Linear, uniform_ init), SGD with StepLR and clip_grad_norm_, train / evaluate with
# random_split, then predict() on new sentences; and EmbeddingBag's other modes, per_sample_weights,
# padding_idx, 2-D input and from_pretrained, checked against F.embedding_bag and a hand-written loop.
import random
from collections import Counter

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, random_split

torch.manual_seed(0)
random.seed(0)

# ---- a tiny news corpus with four labels (World, Sports, Business, Sci/Tec), generated from word lists
topics = {
    1: "election minister government war treaty capital embassy parliament president protest",
    2: "match goal team season coach league player score win cup",
    3: "market stocks profit shares bank earnings oil trade economy deal",
    4: "software computer internet space science research phone chip data robot",
}
filler = "the a of in on and to for with new says after over".split()
label_names = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def make_corpus(n):
    corpus = []
    for _ in range(n):
        label = random.randint(1, 4)
        words = random.choices(topics[label].split(), k=random.randint(2, 5))
        words += random.choices(filler, k=random.randint(2, 6))
        if random.random() < 0.2:  # some noise from another topic
            words += random.choices(topics[random.randint(1, 4)].split(), k=1)
        random.shuffle(words)
        corpus.append((label, " ".join(words)))
    return corpus


train_iter, test_iter = make_corpus(240), make_corpus(60)
print(train_iter[0])
tokenizer = str.split

# ---- the vocabulary: tokens sorted by frequency, ties by first appearance, specials first
counter = Counter()
for _, text in train_iter:
    counter.update(tokenizer(text))
itos = ["<unk>"] + [tok for tok, _ in counter.most_common()]
stoi = {tok: i for i, tok in enumerate(itos)}


def vocab(tokens):
    return [stoi.get(tok, 0) for tok in tokens]


print("vocab size", len(itos), vocab(["here", "is", "the", "market", "goal"]))


def text_pipeline(x):
    return vocab(tokenizer(x))


def label_pipeline(x):
    return int(x) - 1


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


labels, text, offsets = collate_batch(train_iter[:3])
print("collated", labels, text.shape, offsets, offsets.dtype)


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set(label for (label, text) in train_iter))
vocab_size = len(itos)
emsize = 16
model = TextClassificationModel(vocab_size, emsize, num_class)
print(model)

EPOCHS = 5
LR = 5
BATCH_SIZE = 16
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)


def train(dataloader):
    model.train()
    total_acc, total_count, norms = 0, 0, []
    for label, text, offsets in dataloader:
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1).item())
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    return total_acc / total_count, max(norms)


def evaluate(dataloader):
    model.eval()
    total_acc, total_count, total_loss = 0, 0, 0.0
    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted_label = model(text, offsets)
            total_loss += criterion(predicted_label, label).item() * label.size(0)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count, total_loss / total_count


num_train = int(len(train_iter) * 0.95)
split_train_, split_valid_ = random_split(train_iter, [num_train, len(train_iter) - num_train])
print("split", len(split_train_), len(split_valid_), split_valid_.indices[:5])
train_dataloader = DataLoader(split_train_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
valid_dataloader = DataLoader(split_valid_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
test_dataloader = DataLoader(test_iter, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)

total_accu = None
for epoch in range(1, EPOCHS + 1):
    train_acc, max_norm = train(train_dataloader)
    accu_val, loss_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print(f"| end of epoch {epoch:3d} | train accuracy {train_acc:8.3f} | valid accuracy {accu_val:8.3f} "
          f"| valid loss {loss_val:.4f} | max grad norm {max_norm:.3f} | lr {scheduler.get_last_lr()[0]}")

accu_test, loss_test = evaluate(test_dataloader)
print(f"test accuracy {accu_test:8.3f} test loss {loss_test:.4f}")


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


for ex_text_str in ["the coach says the team will win the cup", "oil market and bank shares fall after the deal",
                    "new robot chip for space research", "unknown words only"]:
    print(f"{ex_text_str!r} is {label_names[predict(ex_text_str, text_pipeline)]} news")

# ---- EmbeddingBag's modes, checked against a loop over the bags
weight = torch.randn(10, 3)
bag_input = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
bag_offsets = torch.tensor([0, 4, 4, 6])  # the second bag is empty
for mode in ["sum", "mean", "max"]:
    bag = nn.EmbeddingBag.from_pretrained(weight, mode=mode)
    out = bag(bag_input, bag_offsets)
    ends = bag_offsets.tolist()[1:] + [len(bag_input)]
    loop = []
    for start, end in zip(bag_offsets.tolist(), ends):
        rows = weight[bag_input[start:end]]
        if end == start:
            loop.append(torch.zeros(3))
        else:
            loop.append({"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0).values}[mode])
    print(mode, out.shape, torch.allclose(out, torch.stack(loop)), bag.weight.requires_grad)
    print(out)

psw = torch.tensor([1.0, 0.5, 0.5, 2.0, 1.0, 1.0, 0.1, 0.1])
weighted = F.embedding_bag(bag_input, weight, bag_offsets, mode="sum", per_sample_weights=psw)
print("per_sample_weights", weighted)
# include_last_offset: CSR-style offsets whose last entry is len(input) (the documented form; a smaller last
# offset gives mode-dependent results on PyTorch's CPU, pytorch/pytorch#191965)
last = F.embedding_bag(bag_input, weight, torch.tensor([0, 3, 8]), mode="mean", include_last_offset=True)
print("include_last_offset", last.shape, last)

# 2-D input: every row is a bag (no offsets), and padding_idx leaves the pad token out of the mean
pad_bag = nn.EmbeddingBag(10, 3, mode="mean", padding_idx=0)
rows = torch.tensor([[1, 2, 0, 0], [3, 0, 0, 0], [4, 5, 6, 7]])
pooled = pad_bag(rows)
print("padding_idx row", pad_bag.weight[0].tolist(), "pooled", pooled.shape)
print(torch.allclose(pooled[0], pad_bag.weight[[1, 2]].mean(0)), torch.allclose(pooled[1], pad_bag.weight[3]))
pooled.sum().backward()
print("grad rows touched", (pad_bag.weight.grad.abs().sum(1) > 0).nonzero().flatten().tolist())
print("grad of the pad row", pad_bag.weight.grad[0].tolist())
try:
    F.embedding_bag(rows, weight, bag_offsets)
except ValueError as e:
    print("ValueError:", e)
try:
    nn.EmbeddingBag(10, 3, mode="max")(bag_input, bag_offsets, per_sample_weights=psw)
except NotImplementedError as e:
    print("NotImplementedError:", e)
