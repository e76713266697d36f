# The "NLP From Scratch" tutorials on a small built-in list of names: "Classifying names with a
# character-level RNN" (unicodeToAscii, one-hot letterToTensor / lineToTensor, the hand-written RNN cell
# with i2h / h2o and LogSoftmax, then nn.RNN, NLLLoss, categoryFromOutput with topk, randomTrainingExample,
# manual SGD through p.data.add_, a confusion matrix and predict()) and "Generating names with a
# character-level RNN" (category + input + hidden, dropout, targets shifted by one, per-step loss
# accumulation, sampling until EOS).
import random
import string
import time
import unicodedata

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )


print(unicodeToAscii('Ślusàrski'))

category_lines = {
    "English": ["Smith", "Johnson", "Williams", "Brown", "Taylor", "Walker", "White", "Harris", "Clarke"],
    "French": ["Bélanger", "Dubois", "Lefèvre", "Moreau", "Laurent", "Simon", "Michel", "Garnier", "Rousseau"],
    "Italian": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino"],
    "Japanese": ["Satō", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Itō", "Yamamoto", "Nakamura", "Kobayashi"],
}
category_lines = {k: [unicodeToAscii(n) for n in v] for k, v in category_lines.items()}
all_categories = list(category_lines)
n_categories = len(all_categories)
print(category_lines['Italian'][:5], n_categories)


# Find letter index from all_letters, e.g. "a" = 0
def letterToIndex(letter):
    return all_letters.find(letter)


# Just for demonstration, turn a letter into a <1 x n_letters> Tensor
def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


# Turn a line into a <line_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(letterToTensor('J'))
print(lineToTensor('Jones').size())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()

        self.hidden_size = hidden_size

        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.h2o(hidden)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 64
rnn = RNN(n_letters, n_hidden, n_categories)

input = lineToTensor('Albert')
hidden = torch.zeros(1, n_hidden)

output, next_hidden = rnn(input[0], hidden)
print(output)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


print(categoryFromOutput(output))


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingExample():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    line_tensor = lineToTensor(line)
    return category, line, category_tensor, line_tensor


for i in range(4):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    print('category =', category, '/ line =', line, category_tensor, tuple(line_tensor.shape))

criterion = nn.NLLLoss()
learning_rate = 0.005


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()

    rnn.zero_grad()

    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    loss = criterion(output, category_tensor)
    loss.backward()

    # Add parameters' gradients to their values, multiplied by learning rate
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item()


n_iters = 600
print_every = 150
plot_every = 50
current_loss = 0
all_losses = []
start = time.time()

for iter in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss

    if iter % print_every == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% %.4f %s / %s %s' % (iter, iter / n_iters * 100, loss, line, guess, correct))

    if iter % plot_every == 0:
        all_losses.append(current_loss / plot_every)
        current_loss = 0

print([round(l, 3) for l in all_losses[::3]])

# Keep track of correct guesses in a confusion matrix
confusion = torch.zeros(n_categories, n_categories)
n_confusion = 100


# Just return an output given a line
def evaluate(line_tensor):
    hidden = rnn.initHidden()

    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    return output


for i in range(n_confusion):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output = evaluate(line_tensor)
    guess, guess_i = categoryFromOutput(output)
    category_i = all_categories.index(category)
    confusion[category_i][guess_i] += 1

for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion)


def predict(input_line, n_predictions=3):
    print('\n> %s' % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))

        # Get top N categories
        topv, topi = output.topk(n_predictions, 1, True)
        predictions = []

        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print('(%.2f) %s' % (value, all_categories[category_index]))
            predictions.append([value, all_categories[category_index]])


predict('Dovesky')
predict('Satoshi')
predict('Rossetti')


# ---- the same classifier with nn.RNN over the whole sequence
class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()

        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)

        return output


char_rnn = CharRNN(n_letters, 32, n_categories)
print(char_rnn)
optimizer = torch.optim.SGD(char_rnn.parameters(), lr=0.15)
pairs = [(torch.tensor([i]), lineToTensor(n)) for i, c in enumerate(all_categories) for n in category_lines[c]]
for epoch in range(6):
    random.shuffle(pairs)
    total = 0.0
    for label, line_tensor in pairs:
        loss = criterion(char_rnn(line_tensor), label)
        loss.backward()
        nn.utils.clip_grad_norm_(char_rnn.parameters(), 3)
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item()
    print(epoch, round(total / len(pairs), 4))

char_rnn.eval()
with torch.no_grad():
    correct = sum(char_rnn(t).argmax(1).item() == label.item() for label, t in pairs)
print("train accuracy", correct / len(pairs))

# ---- "Generating names": an RNN conditioned on the category
all_letters_gen = string.ascii_letters + " .,;'-"
n_letters_gen = len(all_letters_gen) + 1  # Plus EOS marker


class GenRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(GenRNN, self).__init__()
        self.hidden_size = hidden_size

        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# One-hot vector for category
def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


# One-hot matrix of first to last letters (not including EOS) for input
def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters_gen)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters_gen.find(letter)] = 1
    return tensor


# ``LongTensor`` of second letter to end (EOS) for target
def targetTensor(line):
    letter_indexes = [all_letters_gen.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters_gen - 1)  # EOS
    return torch.LongTensor(letter_indexes)


def randomTrainingPair():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    return category, line


def randomTrainingExample():
    category, line = randomTrainingPair()
    category_tensor = categoryTensor(category)
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return category_tensor, input_line_tensor, target_line_tensor


print(targetTensor("Rossi"), inputTensor("ab").nonzero())

criterion = nn.NLLLoss()
learning_rate = 0.005
rnn = GenRNN(n_letters_gen, 128, n_letters_gen)


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()

    rnn.zero_grad()

    loss = torch.Tensor([0])  # you can also just simply use ``loss = 0``

    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l

    loss.backward()

    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item() / input_line_tensor.size(0)


total_loss = 0
for iter in range(1, 301):
    output, loss = train(*randomTrainingExample())
    total_loss += loss
    if iter % 100 == 0:
        print('%d %d%% %.4f' % (iter, iter / 300 * 100, total_loss / 100))
        total_loss = 0

max_length = 8


# Sample from a category and starting letter
def sample(category, start_letter='A'):
    with torch.no_grad():  # no need to track history in sampling
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()

        output_name = start_letter

        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters_gen - 1:
                break
            else:
                letter = all_letters_gen[topi]
                output_name += letter
            input = inputTensor(letter)

        return output_name


# Get multiple samples from one category and multiple starting letters
def samples(category, start_letters='ABC'):
    for start_letter in start_letters:
        print(sample(category, start_letter))


rnn.eval()
samples('Italian', 'RUS')
samples('Japanese', 'STK')

# and with temperature sampling instead of the argmax
with torch.no_grad():
    for category in all_categories:
        hidden, input, name = rnn.initHidden(), inputTensor("M"), "M"
        for i in range(max_length):
            output, hidden = rnn(categoryTensor(category), input[0], hidden)
            probs = torch.softmax(output.div(0.8), dim=1)
            topi = torch.multinomial(probs, 1).item()
            if topi == n_letters_gen - 1:
                break
            name += all_letters_gen[topi]
            input = inputTensor(all_letters_gen[topi])
        print(category, name)
